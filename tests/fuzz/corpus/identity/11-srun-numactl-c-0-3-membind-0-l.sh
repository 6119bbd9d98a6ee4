srun -n 1 numactl -C 0-3 --membind 0 -l ./triad
