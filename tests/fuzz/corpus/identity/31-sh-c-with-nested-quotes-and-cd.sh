srun sh -c 'cd /work && exec ./z --fast'
