/* The library function the worksize benchmark calls: BLAS-like, two
 * input buffers, an output buffer and a scalar passed by pointer. */
void bench_ws(const double *a, const double *b, double *c, const int *n);
