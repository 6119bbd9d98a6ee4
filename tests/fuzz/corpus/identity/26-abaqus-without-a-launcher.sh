module load abaqus/2023
unset SLURM_GTIDS
abaqus job=x cpus=24 interactive
