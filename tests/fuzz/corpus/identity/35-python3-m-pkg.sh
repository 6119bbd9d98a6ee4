srun python3 -m torch.distributed.run --nproc 4 t.py
