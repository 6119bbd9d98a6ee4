mpirun -np 64 --bind-to core --map-by ppr:2:socket -x OMP_NUM_THREADS -x LD_LIBRARY_PATH --mca btl ^openib --hostfile $HOSTFILE ./gmx_mpi mdrun -s topol.tpr
