bash -c "srun ./y"
