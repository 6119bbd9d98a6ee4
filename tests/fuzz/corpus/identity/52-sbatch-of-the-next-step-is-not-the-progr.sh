./simulate
tar czf out.tgz out/
sbatch next_step.sh
