#!/bin/bash
#SBATCH -N 1
#SBATCH --time=00:10:00
module load foo
echo "srun ./not_really"
cd /tmp
