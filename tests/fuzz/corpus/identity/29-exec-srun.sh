exec srun ./x
