for i in $(seq 1 4); do
    srun -n 1 --exact ./worker $i &
done
wait
