/* Circular convolution (Table I), multi-threaded: work metric = length
 * N of x; h is fixed at 256 taps, so time ~ N * 256.
 *   y[i] = sum_{k<256} h[k] * x[(i - k) mod N]
 * (h is aliased onto the period when N < 256). Threads take equal
 * shares of the outputs and work in tiles: each tile copies the periodic
 * stretch of x it needs, so the inner loop has no modulo and
 * vectorises. */
#include "planner/adapters/adapters.h"

#include <math.h>
#include <stdlib.h>

#define TAPS 256
#define TILE 1024

struct conv_sample {
	float *x, *y;
	float h_rev[TAPS];         /* h reversed: y is a correlation with it */
	float h[TAPS];
	size_t n;
};

static int setup(void *state, uint64_t metric, void **sample)
{
	struct conv_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->n = metric;
	s->x = adapter_alloc(s->n, sizeof(float));
	s->y = adapter_alloc_output(s->n, sizeof(float));
	if (!s->x || !s->y || s->n == 0) {
		free(s->x);
		free(s->y);
		free(s);
		return -1;
	}
	adapter_fill_random_floats(state, s->x, s->n);
	adapter_fill_random_floats(state, s->h, TAPS);
	for (size_t k = 0; k < TAPS; k++)
		s->h_rev[k] = s->h[TAPS - 1 - k];
	*sample = s;
	return 0;
}

/* buf[u] = x[(i0 + u - (TAPS - 1)) mod n] for u < len. */
static void periodic_copy(const struct conv_sample *s, size_t i0, size_t len, float *buf)
{
	size_t idx = (i0 + s->n - (TAPS - 1) % s->n) % s->n;
	for (size_t u = 0; u < len; u++) {
		buf[u] = s->x[idx];
		if (++idx == s->n)
			idx = 0;
	}
}

static void conv_range(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct conv_sample *s = arg;
	float buf[TILE + TAPS - 1];
	(void)tid;
	for (size_t i0 = lo; i0 < hi; i0 += TILE) {
		size_t len = hi - i0 < TILE ? hi - i0 : TILE;
		periodic_copy(s, i0, len + TAPS - 1, buf);
		float *restrict y = s->y + i0;
		for (size_t i = 0; i < len; i++)
			y[i] = 0;
		for (size_t t = 0; t < TAPS; t++) {
			const float w = s->h_rev[t];
			const float *restrict xb = buf + t;
			for (size_t i = 0; i < len; i++)
				y[i] += w * xb[i];
		}
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return adapter_timed_parallel(state, ((struct conv_sample *)sample)->n,
				      conv_range, sample);
}

static void teardown(void *state, void *sample)
{
	struct conv_sample *s = sample;
	(void)state;
	free(s->x);
	free(s->y);
	free(s);
}

/* Reference: the definition, with the modulo, in double. */
static int verify(void *state, void *sample, uint64_t metric)
{
	struct conv_sample *s = sample;
	(void)state;
	if (s->n != metric)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		double sum = 0;
		for (size_t k = 0; k < TAPS; k++) {
			size_t j = (size_t)((((long long)i - (long long)k) % (long long)s->n +
					     (long long)s->n) % (long long)s->n);
			sum += (double)s->h[k] * s->x[j];
		}
		if (!(fabs(s->y[i] - sum) <= 1e-4 * (1 + fabs(sum))))
			return -1;
	}
	return 0;
}

/* Time ~ |x| * |h|: the paper's inverse mapping, |x| * |h| / 256. */
static double metric_of(const double *params, size_t nparams)
{
	if (!adapter_params_ok(params, nparams, 2, 1))
		return -1;
	return params[0] * params[1] / TAPS;
}

static size_t params_of(void *sample, double *params)
{
	params[0] = (double)((struct conv_sample *)sample)->n;
	params[1] = TAPS;
	return 2;
}

const struct sibyl_adapter adapter_circ_conv = {
	ADAPTER_THREADED_FIELDS,
	.name = "circ-conv",
	.description = "circular convolution with a 256-tap operand, pthreads",
	.work_metric = "length of x (h has 256 elements)",
	.min_metric = 1,
	.max_metric = 2500000,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "len_x,len_h",
	.metric_of = metric_of,
};

const struct adapter_internal adapter_circ_conv_internal = {
	.adapter = &adapter_circ_conv,
	.verify = verify,
	.params_of = params_of,
};
