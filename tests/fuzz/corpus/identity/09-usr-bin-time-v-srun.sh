/usr/bin/time -v -o time.log srun ./xhpl
