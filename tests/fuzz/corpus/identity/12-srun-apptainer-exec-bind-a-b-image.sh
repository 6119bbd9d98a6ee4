srun apptainer exec --bind /a:/b image.sif /opt/bin/lmp -in in.lj
