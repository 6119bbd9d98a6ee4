ddt --offline -o report.html srun -n 8 ./buggy
