run() {
    taskset -c 0-7 ./kernel "$@"
}
run 1
