#!/bin/bash
srun -N 2 -n 48 --ntasks-per-node=24 -c 1 --cpu-bind=cores --mem-per-cpu 2G -o out.%j -l --exclusive -t 01:00:00 --distribution block:cyclic ./cp2k.psmp -i H2O.inp
