time srun -n 4 ./stream_c.exe
