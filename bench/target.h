/* The trivial shared-library function the overhead benchmark calls. */
int bench_work(int x);
