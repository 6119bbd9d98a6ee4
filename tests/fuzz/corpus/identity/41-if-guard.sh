if [[ -f restart.dat && -n "$RESTART" ]]; then
    srun ./md --restart
fi
