srun env -u DISPLAY OMP_NUM_THREADS=4 KMP_AFFINITY=compact ./nwchem input.nw
