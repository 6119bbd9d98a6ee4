mpirun $MPI_FLAGS ./app_after_flags
