srun -n 4 ./solver && echo done || echo failed
