srun --pty bash -i
