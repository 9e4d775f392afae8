/* The samples of the matrix-product adapters (blas_product.h). */
#include "blas_product.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double *random_matrix(unsigned long long *rng, size_t count)
{
	double *v = malloc(count * sizeof(*v));

	for (size_t i = 0; v && i < count; i++) {
		*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (double)(*rng >> 11) / 9007199254740992.0 - 0.5;
	}
	return v;
}

static void shape_of(uint64_t metric, int *m, int *n, int *k)
{
	int side = (int)floor(cbrt((double)metric / 2));

	if (side < 1)
		side = 1;
	while (2.0 * (side + 1) * (side + 1) * (side + 1) <= (double)metric)
		side++;	/* cbrt rounding */
	*n = *k = side;
	*m = (int)llround((double)metric / (2.0 * side * side));
	if (*m < 1)
		*m = 1;
}

static size_t bytes_of(const struct blas_product *p)
{
	return ((size_t)p->m * p->k + (size_t)p->k * p->n + (size_t)p->m * p->n) * sizeof(double);
}

/* save: pristine <- a, b, c; else a, b, c <- pristine. */
static void copy_inputs(struct blas_product *p, bool save)
{
	double *at = p->pristine;
	double *const parts[] = { p->a, p->b, p->c };
	const size_t counts[] = { (size_t)p->m * p->k, (size_t)p->k * p->n, (size_t)p->m * p->n };

	for (int i = 0; i < 3; i++) {
		if (save)
			memcpy(at, parts[i], counts[i] * sizeof(double));
		else
			memcpy(parts[i], at, counts[i] * sizeof(double));
		at += counts[i];
	}
}

int blas_product_setup(void *state, uint64_t metric, void **sample)
{
	struct blas_sampler *s = state;
	struct blas_product *p = calloc(1, sizeof(*p));

	*sample = p;
	if (!p)
		return -1;
	shape_of(metric, &p->m, &p->n, &p->k);
	p->a = random_matrix(&s->rng, (size_t)p->m * p->k);
	p->b = random_matrix(&s->rng, (size_t)p->k * p->n);
	p->c = random_matrix(&s->rng, (size_t)p->m * p->n);
	p->pristine = malloc(bytes_of(p));
	if (!p->a || !p->b || !p->c || !p->pristine)
		return -1;
	copy_inputs(p, true);
	return 0;
}

void blas_product_teardown(void *state, void *sample)
{
	struct blas_product *p = sample;

	(void)state;
	if (!p)
		return;
	free(p->a);
	free(p->b);
	free(p->c);
	free(p->pristine);
	free(p);
}

void blas_product_restore(struct blas_product *p)
{
	copy_inputs(p, false);
}

double blas_product_scaled(const struct blas_product *p, uint64_t metric, double seconds)
{
	return seconds * (double)metric / (2.0 * p->m * p->n * p->k);
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void blas_sampler_init(struct blas_sampler *s, double (*now)(void), uint64_t seed)
{
	s->now = now ? now : monotonic;
	s->rng = seed | 1;
}

double blas_product_metric_of(const double *params, size_t nparams)
{
	if (nparams != 3 || params[0] < 1 || params[1] < 1 || params[2] < 1)
		return -1;
	return 2 * params[0] * params[1] * params[2];
}
