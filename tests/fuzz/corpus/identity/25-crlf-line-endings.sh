#!/bin/bash
#SBATCH -n 4
module load x
cat <<EOF > in
srun decoy
EOF
srun -n 4 \
   ./crlf_app
