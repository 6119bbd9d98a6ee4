mpirun -np 16 ./bt.C.x 2>&1 | tee bt.log
