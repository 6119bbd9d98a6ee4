case "$MODE" in
  big|huge) srun -n 64 ./big ;;
  *) srun -n 4 ./small ;;
esac
