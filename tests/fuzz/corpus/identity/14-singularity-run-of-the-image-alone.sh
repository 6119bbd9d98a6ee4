mpirun -np 8 singularity run --cleanenv /images/openfoam_v2306.sif
