srun hostname
srun -N2 mkdir -p /tmp/$USER
srun ./the_program
