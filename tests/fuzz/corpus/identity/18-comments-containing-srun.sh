# srun old_version
#srun -n 2 ./older
srun ./new_version # srun not_this
