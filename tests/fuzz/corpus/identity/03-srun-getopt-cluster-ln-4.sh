srun -ln 4 ./hello
