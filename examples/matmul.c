/*
 * The bundled demo application: matrix products on reference BLAS over a
 * range of sizes, through both the C interface (cblas_dgemm) and the
 * Fortran one (dgemm_), the way real codes mix them.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b,
	    const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb);

static double *matrix(int n, unsigned *seed)
{
	double *m = malloc(sizeof(double) * (size_t)n * (size_t)n);

	for (int i = 0; i < n * n; i++)
		m[i] = (double)rand_r(seed) / RAND_MAX - 0.5;
	return m;
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 384;
	unsigned seed = 1;
	double checksum = 0;
	int products = 0;

	for (int n = 16; n <= max; n += 16) {
		double *a = matrix(n, &seed), *b = matrix(n, &seed), *c = matrix(n, &seed);
		double one = 1.0, zero = 0.0;

		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n,
			    0.0, c, n);
		checksum += c[0];
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
		checksum += c[n * n - 1];
		products += 2;
		free(a);
		free(b);
		free(c);
	}
	printf("%d matrix products, checksum %.6f\n", products, checksum);
	return 0;
}
