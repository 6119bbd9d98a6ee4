cat <<EOF; srun ./same_line
srun decoy
EOF
