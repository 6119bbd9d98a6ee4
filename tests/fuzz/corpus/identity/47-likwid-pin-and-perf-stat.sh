srun likwid-pin -c N:0-7 perf stat -e cycles -r 3 ./dgemm
