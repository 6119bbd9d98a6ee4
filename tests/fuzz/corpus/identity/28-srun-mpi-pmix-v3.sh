srun --mpi=pmix_v3 lmp_mpi -in in.lj
