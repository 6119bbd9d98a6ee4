command -v srun >/dev/null && srun ./after_check
