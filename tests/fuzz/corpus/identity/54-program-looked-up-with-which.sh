mpirun -np 4 `which lmp_serial` -in in.lj
