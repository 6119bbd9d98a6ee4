mpirun -np 32 ls-dyna_mpp_s_R13 i=input.k memory=2000m
