EXE=$HOME/bin/lmp_kokkos
srun "${EXE}" -k on g 4 -in in.lj
