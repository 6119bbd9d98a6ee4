cat <<A <<'B'
srun decoyA
A
srun decoyB
B
./after_two
