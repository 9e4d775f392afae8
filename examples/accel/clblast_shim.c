/*
 * Reference BLAS's dgemm_ and cblas_dgemm on the OpenCL device through
 * CLBlast, for `sibyl wrap --gen redirect:library=libsibyl-accel-clblast.so`
 * (docs/predict.md).  CLBlast has neither the Fortran nor the cblas
 * interface: both entry points check their arguments as reference BLAS
 * does, become one column-major product (a row-major cblas call is the
 * transposed product with A and B swapped, as reference CBLAS does it)
 * and run it on the device, transfers included (clblast_gemm.c).
 *
 * Whatever the device is not given runs on the original BLAS, the
 * libblas.so.3 the program loaded, so the program computes and prints
 * what it would have:
 *   - invalid arguments: the original reports them exactly as it would;
 *   - products with nothing to multiply (m, n or k zero, alpha zero):
 *     only beta scales C, and the original's rules for beta = 0 apply;
 *   - the device failing (none, out of memory, in a forked child).
 * sibyl_clblast_fallbacks() counts the last kind, so a test can tell a
 * product that ran on the device from one that ran on the CPU.
 */
#define _GNU_SOURCE
#include "clblast_gemm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define CBLAS_ROW_MAJOR 101
#define CBLAS_COL_MAJOR 102
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112
#define CBLAS_CONJ_TRANS 113

typedef void fortran_dgemm_fn(const char *transa, const char *transb, const int *m,
			      const int *n, const int *k, const double *alpha, const double *a,
			      const int *lda, const double *b, const int *ldb, const double *beta,
			      double *c, const int *ldc, size_t la, size_t lb);
typedef void cblas_dgemm_fn(int layout, int transa, int transb, int m, int n, int k,
			    double alpha, const double *a, int lda, const double *b, int ldb,
			    double beta, double *c, int ldc);

static struct {
	pthread_once_t once;
	fortran_dgemm_fn *dgemm;
	cblas_dgemm_fn *cblas_dgemm;
} original = { .once = PTHREAD_ONCE_INIT };

static atomic_ulong fallbacks;

/* The program's own libblas.so.3 by its handle: dlsym on a handle finds
 * that library's definition, never the redirect wrapper preloaded in
 * front of it (which would call back here). */
static void find_original(void)
{
	void *h = dlopen("libblas.so.3", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return;
	original.dgemm = (fortran_dgemm_fn *)dlsym(h, "dgemm_");
	original.cblas_dgemm = (cblas_dgemm_fn *)dlsym(h, "cblas_dgemm");
}

/* Only reached with a product the original must do: without libblas.so.3
 * nothing can, and carrying on would return a wrong C silently. */
static void missing_original(const char *name)
{
	fprintf(stderr, "sibyl: libsibyl-accel-clblast: %s: the original in libblas.so.3 "
		"cannot be loaded: %s\n", name, dlerror());
	abort();
}

static int max1(int v)
{
	return v > 1 ? v : 1;
}

static bool is_trans(char c, bool *trans)
{
	*trans = c == 'T' || c == 't' || c == 'C' || c == 'c';
	return *trans || c == 'N' || c == 'n';
}

/* Reference DGEMM's checks (its INFO 1-13); true when it would accept. */
static bool valid(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc)
{
	bool ta, tb;

	return is_trans(transa, &ta) && is_trans(transb, &tb) && m >= 0 && n >= 0 && k >= 0 &&
	       lda >= max1(ta ? k : m) && ldb >= max1(tb ? n : k) && ldc >= max1(m);
}

/* A valid column-major product: on the device when there is something to
 * multiply and the device takes it, else on the original. */
static void product(char transa, char transb, int m, int n, int k, double alpha,
		    const double *a, int lda, const double *b, int ldb, double beta, double *c,
		    int ldc)
{
	struct clgemm_args g = {
		.m = (size_t)m, .n = (size_t)n, .k = (size_t)k, .alpha = alpha, .beta = beta,
		.a = a, .lda = (size_t)lda, .b = b, .ldb = (size_t)ldb, .c = c, .ldc = (size_t)ldc,
	};
	bool trivial = m == 0 || n == 0 || k == 0 || alpha == 0;

	is_trans(transa, &g.trans_a);
	is_trans(transb, &g.trans_b);
	if (!trivial && clgemm(&g) == 0)
		return;
	if (!trivial)
		atomic_fetch_add(&fallbacks, 1);
	pthread_once(&original.once, find_original);
	if (!original.dgemm)
		missing_original("dgemm_");
	original.dgemm(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1,
		       1);
}

EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
		   const int *k, const double *alpha, const double *a, const int *lda,
		   const double *b, const int *ldb, const double *beta, double *c, const int *ldc,
		   size_t la, size_t lb)
{
	if (valid(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc)) {
		product(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
		return;
	}
	pthread_once(&original.once, find_original);
	if (!original.dgemm)
		missing_original("dgemm_");
	original.dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

static char fortran_trans(int t)
{
	return t == CBLAS_NO_TRANS ? 'N' : t == CBLAS_TRANS || t == CBLAS_CONJ_TRANS ? 'T' : 0;
}

EXPORT void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
			const double *a, int lda, const double *b, int ldb, double beta,
			double *c, int ldc)
{
	char ta = fortran_trans(transa), tb = fortran_trans(transb);

	/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
	if (layout == CBLAS_COL_MAJOR && ta && tb && valid(ta, tb, m, n, k, lda, ldb, ldc)) {
		product(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
		return;
	}
	if (layout == CBLAS_ROW_MAJOR && ta && tb && valid(tb, ta, n, m, k, ldb, lda, ldc)) {
		product(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
		return;
	}
	pthread_once(&original.once, find_original);
	if (!original.cblas_dgemm)
		missing_original("cblas_dgemm");
	original.cblas_dgemm(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
			     ldc);
}

/* Products the device was given but did not run (they ran on the
 * original instead). */
EXPORT unsigned long sibyl_clblast_fallbacks(void)
{
	return atomic_load(&fallbacks);
}
