/* Shared by the two matrix-multiply adapters (the paper's and the
 * shape-robust one): C (m x p) = A (m x n) * B (n x p), floats, row-major.
 * B and C rows are `ld` floats apart (ld >= p, like BLAS's ldb/ldc); the
 * padding of B is zero, so a kernel may run whole vectors past p. */
#ifndef SIBYL_PLANNER_ADAPTERS_MATMUL_H
#define SIBYL_PLANNER_ADAPTERS_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

struct matmul_sample {
	size_t m, n, p, ld;
	float *a, *b, *c;
};

/* Random A and B of the given shape (every dimension >= 1); `padded`
 * rounds ld up to a multiple of 16 floats, else ld = p. */
int matmul_setup_shape(void *state, size_t m, size_t n, size_t p, bool padded,
		       struct matmul_sample **out);
/* For sibyl_param_hooks.setup: params are m, n, p. */
int matmul_setup_params(void *state, const double *params, size_t nparams,
			bool padded, void **sample);
void matmul_teardown(void *state, void *sample);
/* Reference: the definition in double; 0 when C matches. */
int matmul_verify(void *state, void *sample, uint64_t metric);
size_t matmul_params_of(void *sample, double *params);

/* A work metric as a function of the shape d = {m, n, p}, growing with
 * each dimension. */
typedef double (*matmul_cost_fn)(const double d[3]);

/* Set d[which] (the others fixed) to the value whose cost is closest to
 * w; returns the relative distance left. */
double matmul_solve_dim(matmul_cost_fn cost, double d[3], int which, double w);

/* sibyl_param_hooks.draw: a metric uniform in [lo, hi], then a random
 * shape with that metric (two dimensions log-uniform in 1..4096, the
 * third solved; each matrix at most 2^22 floats).  Returns 3. */
size_t matmul_draw(matmul_cost_fn cost, uint64_t seed, uint64_t lo, uint64_t hi,
		   double *params);

/* Run a kernel over C split evenly between the adapter's threads: by
 * rows when C has at least as many rows as columns, else by groups of 16
 * columns.
 * Returns the elapsed seconds. */
typedef void (*matmul_kernel_fn)(const struct matmul_sample *s, size_t i0, size_t i1,
				 size_t j0, size_t j1);
double matmul_timed(void *state, struct matmul_sample *s, matmul_kernel_fn kernel);

/* The terms of "matmul"'s work metric for a shape d = {m, n, p}: the
 * padded multiply-accumulates first, then the kernel's overheads
 * (matmul.c explains each); metric = a per-call constant + sum of
 * matmul_weights[i] * f[i]. */
#define MATMUL_NF 7
void matmul_features(const double d[3], double f[MATMUL_NF]);
/* The same with the streaming terms' threshold given: A, C or B's
 * 128-column panel of more than `cache_floats` floats is read again from
 * beyond L2 (adapter_probe fit tries several). */
void matmul_features_at(const double d[3], double cache_floats, double f[MATMUL_NF]);
extern const double matmul_weights[MATMUL_NF];

#endif
