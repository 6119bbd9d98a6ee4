#!/bin/bash
#SBATCH -N 2
srun ./lmp_mpi -in in.lj
