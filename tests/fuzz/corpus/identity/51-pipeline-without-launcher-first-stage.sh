./gen_input | ./consume > out
