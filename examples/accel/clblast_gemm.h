/*
 * A column-major double matrix product on the OpenCL device through
 * CLBlast, transfers included: what the CLBlast shim (clblast_shim.c)
 * and its planner adapter (clblast_adapter.c) both run.
 */
#ifndef SIBYL_ACCEL_CLBLAST_GEMM_H
#define SIBYL_ACCEL_CLBLAST_GEMM_H

#include <stdbool.h>
#include <stddef.h>

/* C = alpha op(A) op(B) + beta C, column-major, arguments already
 * checked the way reference BLAS checks them (lda >= rows of A, ...). */
struct clgemm_args {
	bool trans_a, trans_b;
	size_t m, n, k;
	double alpha, beta;
	const double *a;
	size_t lda;
	const double *b;
	size_t ldb;
	double *c;
	size_t ldc;
	/* A and B are on the device from the previous product of the same
	 * shape, and C stays there: no transfer at all.  For the adapter that
	 * times the device's compute alone (clblast_adapter.c). */
	bool resident;
};

/* Opens the first device of the first OpenCL platform that has one, once
 * per process; later calls return what the first one did.  0, or -1 with
 * a reason in err (when err is not NULL). */
int clgemm_open(char *err, size_t errlen);

/* The product on the device: A, B (and C when beta != 0) written, the
 * product run, C read back, under one lock.  0, or -1 when the device
 * could not do it: C is then as the caller left it (OpenCL refuses a
 * read back before copying anything, or copies it all). */
int clgemm(const struct clgemm_args *g);

/* Releases the device buffers and the context; the next clgemm_open
 * opens them again.  For the adapter's fini only: never while products
 * may run on other threads. */
void clgemm_close(void);

#endif
