export I_MPI_DEBUG=4
mpiexec -n 96 -genv OMP_NUM_THREADS 1 -genv I_MPI_PIN=1 ./wrf.exe
