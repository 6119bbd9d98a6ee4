cd $SLURM_SUBMIT_DIR
./configure_run
cd run
./a.out > out.txt 2>&1
echo finished
