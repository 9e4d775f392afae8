/*
 * A stand-in "accelerated" BLAS for the redirect tests: dgemm_ and
 * cblas_dgemm that count as they forward to reference BLAS, so a test
 * can tell which calls a redirect wrapper sent here (the real
 * accelerators, OpenBLAS and CLBlast, cannot say).  The count is printed
 * to stderr at exit: "alt_blas: N calls, smallest work W".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define REFERENCE "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"

static unsigned long calls;
static double smallest = -1;

static void *reference(const char *name)
{
	static void *h;

	if (!h)
		h = dlopen(REFERENCE, RTLD_NOW | RTLD_LOCAL);
	void *fn = h ? dlsym(h, name) : NULL;

	if (!fn)
		abort();
	return fn;
}

static void count(double work)
{
	calls++;
	if (smallest < 0 || work < smallest)
		smallest = work;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "alt_blas: %lu calls, smallest work %.0f\n", calls, smallest);
}

typedef void dgemm_f(const char *, const char *, const int *, const int *, const int *,
		     const double *, const double *, const int *, const double *, const int *,
		     const double *, double *, const int *, size_t, size_t);

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b,
	    const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb)
{
	count(2.0 * *m * *n * *k);
	((dgemm_f *)reference("dgemm_"))(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
					 la, lb);
}

typedef void cblas_dgemm_f(int, int, int, int, int, int, double, const double *, int,
			   const double *, int, double, double *, int);

void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha,
		 const double *a, int lda, const double *b, int ldb, double beta, double *c,
		 int ldc)
{
	count(2.0 * m * n * k);
	((cblas_dgemm_f *)reference("cblas_dgemm"))(layout, ta, tb, m, n, k, alpha, a, lda, b,
						    ldb, beta, c, ldc);
}
