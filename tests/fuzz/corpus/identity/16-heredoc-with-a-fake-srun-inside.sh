cat <<EOF > job.conf
srun fake
EOF
srun ./real
