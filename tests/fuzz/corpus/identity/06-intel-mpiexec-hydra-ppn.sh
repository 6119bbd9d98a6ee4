mpiexec.hydra -ppn 2 -n 8 -f hosts.txt /opt/vasp/bin/vasp_std
