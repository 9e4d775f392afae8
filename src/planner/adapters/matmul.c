/* Matrix multiply with a work metric that holds for any shape.
 *
 * The paper's adapter (matmul-paper) assumed equal multiply-accumulate
 * counts take equal time and was off by 38%: a multiply also moves data
 * and restarts loops, at costs that depend on the shape, not on m*n*p.
 * This adapter fixes the metric, keeping the profile one-dimensional
 * (docs/adapter.md has the measurements):
 *
 *  1. a cache-blocked kernel over padded rows, so every cost it pays is
 *     a countable feature of the shape (no cache cliffs, no scalar
 *     remainders, no library calls);
 *  2. metric = the kernel's cost in multiply-accumulate equivalents,
 *     the sum of those features weighted by least squares over random
 *     shapes (matmul_weights);
 *  3. the planner samples one family of shapes (m >= 100, n = p <= 128)
 *     whose cost matches the metric within 1%; any (m, n, p) is
 *     predicted through metric_of = cost(m, n, p).
 */
#include "planner/adapters/adapters.h"
#include "planner/adapters/matmul.h"

#include <math.h>

/* A tile of B, KB x JB floats, is 16 KiB: it stays in L1 (with a row of
 * C) while every row of A passes over it, whatever the shape, so one
 * multiply-accumulate costs the same in small and large products; in
 * L2 it would not. */
#define JB 128   /* columns of a B tile */
#define KB 32    /* rows of a B tile */
#define VL 16    /* every inner loop runs whole multiples of 16 lanes */
/* Rows of C updated per pass over B's tiles: without this bound a
 * 128-column strip of C (m x 512 B) fell out of L2 once m reached
 * about 1024 and was fetched again for every tile of B, 10-20% slower
 * per multiply-accumulate than smaller m (stop 17's evaluations); a
 * 256 x 128 block (128 KiB) and its 256 x 32 panel of A always fit. */
#define IB 256

/* Weights of the features in multiply-accumulates, fitted on the
 * development machine with `adapter_probe fit` over 400 shapes drawn as
 * --evaluate draws them, 200 log-uniform smaller ones and 100 of the
 * planning shapes, every weight kept >= 0 (docs/adapter.md).  New
 * weights change what a metric means: bump the cost model's number in
 * work_metric with them, so that `plan --profile` refuses profiles
 * planned with the old ones. */
const double matmul_weights[MATMUL_NF] = {
	1.0,   /* one padded multiply-accumulate */
	1.29,  /* one inner loop over a tile row (reads one element of A) */
	0.31,  /* one element of C zeroed or updated per tile of B */
	0.0,   /* one element of B brought into a tile */
	8.59,  /* one element of A read again for another column tile, from beyond L2 */
	0.45,  /* one element of C brought from beyond L2 */
	0.0,   /* one element of B read again for another row block, from beyond L2 */
};
/* What one call costs whatever the shape (the fit's constant). */
#define CALL_MACS 214.7

static double round_up(double x, double to)
{
	return ceil(x / to) * to;
}

/* A block of more floats than this is read again from L3 or memory:
 * 256 KiB fitted best of 2^16, 2^17 and 2^18 floats, a quarter of the
 * development machine's L2 (1 MiB), which the blocks of C and B and
 * the panel of A share. */
#define L2_FLOATS (1 << 16)

void matmul_features_at(const double d[3], double cache_floats, double f[MATMUL_NF])
{
	double m = d[0], n = d[1], p16 = round_up(d[2], VL);
	double jtiles = ceil(d[2] / JB), ktiles = ceil(n / KB);
	double iblocks = ceil(m / IB);
	f[0] = m * n * p16;
	f[1] = m * n * jtiles;
	f[2] = m * p16 * ktiles;
	f[3] = n * p16 * iblocks;
	f[4] = m * n > cache_floats ? m * n * (jtiles - 1) : 0;
	f[5] = m * d[2] > cache_floats ? m * p16 : 0;
	f[6] = n * fmin(p16, JB) > cache_floats ? n * p16 * (iblocks - 1) : 0;
}

void matmul_features(const double d[3], double f[MATMUL_NF])
{
	matmul_features_at(d, L2_FLOATS, f);
}

/* The work the kernel below actually does, in multiply-accumulates. */
static double cost(double m, double n, double p)
{
	double d[3] = { m, n, p }, f[MATMUL_NF], sum = CALL_MACS;
	matmul_features(d, f);
	for (int i = 0; i < MATMUL_NF; i++)
		sum += matmul_weights[i] * f[i];
	return sum;
}

static double metric_of(const double *params, size_t nparams)
{
	if (!adapter_params_ok(params, nparams, 3, 1))
		return -1;
	return cost(floor(params[0]), floor(params[1]), floor(params[2]));
}

/* The planning shapes: n = p = 128 (whole vectors and tiles) for large
 * metrics, smaller n and p below, so that m, solved from the metric, is
 * always about 100 or more and the shape's cost is within 1% of the
 * metric (a fixed n = p = 128 would turn small metrics into a staircase
 * of whole rows). Other shapes are predicted through metric_of. */
#define CANON 128.0

static double cost_of(const double d[3])
{
	return cost(d[0], d[1], d[2]);
}

static int setup(void *state, uint64_t metric, void **sample)
{
	double side = fmin(CANON, floor(sqrt((double)metric / 100)));
	double d[3] = { 1, fmax(1, side), fmax(VL, floor(side / VL) * VL) };
	matmul_solve_dim(cost_of, d, 0, (double)metric);
	return matmul_setup_shape(state, (size_t)d[0], (size_t)d[1], (size_t)d[2], true,
				  (struct matmul_sample **)sample);
}

static size_t draw(uint64_t seed, uint64_t lo, uint64_t hi, double *params)
{
	return matmul_draw(cost_of, seed, lo, hi, params);
}

static int setup_params(void *state, const double *params, size_t nparams, void **sample)
{
	return matmul_setup_params(state, params, nparams, true, sample);
}

/* C[i, jj..jj+pj) += A[i, kk..kk+kn) * B[kk..kk+kn, jj..jj+pj), zeroing
 * it first at the first tile. */
static inline void update_row(const struct matmul_sample *s, size_t i, size_t jj, size_t pj,
			      size_t kk, size_t kn)
{
	float *restrict c = s->c + i * s->ld + jj;
	const float *a = s->a + i * s->n + kk;
	if (kk == 0)
		for (size_t j = 0; j < pj; j++)
			c[j] = 0;
	for (size_t k = 0; k < kn; k++) {
		const float ak = a[k];
		const float *restrict b = s->b + (kk + k) * s->ld + jj;
		for (size_t j = 0; j < pj; j += VL)
			for (size_t v = 0; v < VL; v++)
				c[j + v] += ak * b[j + v];
	}
}

/* C[i0..i1, j0..j1) = A[i0..i1, :] * B[:, j0..j1), B walked in tiles of
 * KB x JB that stay in L1 while the rows of A pass over them, IB rows at
 * a time so that the block of C they update stays in L2. Rows of B and
 * C are padded to whole vectors (zeros in B), so each inner loop is a
 * fixed number of 16-lane steps: no scalar remainders, no library calls,
 * nothing whose cost depends on the shape other than the counts
 * matmul_features names. */
static void blocked_kernel(const struct matmul_sample *s, size_t i0, size_t i1,
			   size_t j0, size_t j1)
{
	for (size_t jj = j0; jj < j1; jj += JB) {
		size_t pj = ((j1 - jj < JB ? j1 - jj : JB) + VL - 1) / VL * VL;
		for (size_t ib = i0; ib < i1; ib += IB) {
			size_t ie = i1 - ib < IB ? i1 : ib + IB;
			for (size_t kk = 0; kk < s->n; kk += KB) {
				size_t kn = s->n - kk < KB ? s->n - kk : KB;
				for (size_t i = ib; i < ie; i++)
					update_row(s, i, jj, pj, kk, kn);
			}
		}
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return matmul_timed(state, sample, blocked_kernel);
}

const struct sibyl_adapter adapter_matmul = {
	ADAPTER_THREADED_FIELDS,
	.name = "matmul",
	.description = "cache-blocked matrix multiply, shape-aware metric, pthreads",
	.work_metric = "multiply-accumulate equivalents of the blocked kernel, cost model 3 (planned with n = p <= 128, m >= 100)",
	.min_metric = 10000,
	.max_metric = 640000000,
	.setup = setup,
	.run = run,
	.teardown = matmul_teardown,
	.params_doc = "m,n,p",
	.metric_of = metric_of,
};

const struct adapter_internal adapter_matmul_internal = {
	.adapter = &adapter_matmul,
	.verify = matmul_verify,
	.params_of = matmul_params_of,
	.params = { .draw = draw, .setup = setup_params },
};
