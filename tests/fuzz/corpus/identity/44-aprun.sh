aprun -n 128 -N 32 -d 2 -cc depth ./cesm.exe
