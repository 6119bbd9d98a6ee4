#!/bin/bash -l
#SBATCH --job-name=lammps
module purge
module load gcc/12 openmpi/4.1
ml lammps
source $HOME/venv/bin/activate
. /etc/profile.d/modules.sh
spack load fftw
conda activate md
export OMP_NUM_THREADS=1
cd $SLURM_SUBMIT_DIR
srun lmp -in in.rhodo
