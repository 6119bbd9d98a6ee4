srun python3 -u train.py --lr 0.1
