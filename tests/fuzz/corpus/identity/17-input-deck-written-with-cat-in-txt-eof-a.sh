cat > in.txt <<'EOF'
mpirun -np 2 ./decoy
EOF
	cat <<-END >> in.txt
	srun decoy2
	END
mpirun ./solver in.txt
