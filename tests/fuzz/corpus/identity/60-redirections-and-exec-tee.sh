exec > >(tee job.log) 2>&1
./prog < input.dat >> out.txt 2> err.txt
