srun singularity run --nv -B /scratch:/scratch tf.sif python3 train.py --epochs 10
