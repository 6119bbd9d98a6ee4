NODES=$(srun hostname | sort -u)
(cd sub && srun ./sub_app)
