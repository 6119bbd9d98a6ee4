srun -n 4 \
  --cpu-bind=cores \
  ./app \
  --steps 100
