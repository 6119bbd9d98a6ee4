valgrind --tool=memcheck --leak-check=full -v ./leaky
