for ((i = 0; i < 3; i++)); do
    ./step $i
done
