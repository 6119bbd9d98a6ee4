srun numactl --interleave=all ./app
