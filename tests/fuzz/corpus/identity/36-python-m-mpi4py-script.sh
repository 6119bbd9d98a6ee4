mpirun -np 4 python -m mpi4py solver.py
