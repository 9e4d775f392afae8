/*
 * FFTW's fftw_execute of a complex 1D DFT as a `sibyl plan` adapter.
 * fftw_execute takes only a plan, so its work metric is the size n given
 * when the plan was made: the traced program's wrapper remembers each
 * plan's n (bench/plan/libs/fftw_plans.gen, fftw.defs) and declares the
 * metric below.  Plans are made as a program makes them, FFTW_ESTIMATE,
 * and kept in state while the metric stays the same (a sample's runs);
 * each run gets fresh input.  Time is a staircase in n: sizes with large
 * prime factors run many times slower than their neighbours.  Build
 * with -lfftw3 -lm.
 */
#include <sibyl/adapter.h>

#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>

struct state {
	double (*now)(void);
	uint64_t n, x;
	fftw_complex *in, *out;
	fftw_plan plan;
};

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	s->now = c->now;	/* config lives only during init */
	s->x = c->seed | 1;
	*state = s;
	return 0;
}

static void drop_plan(struct state *s)
{
	if (s->plan)
		fftw_destroy_plan(s->plan);
	fftw_free(s->in);
	fftw_free(s->out);
	s->plan = NULL, s->in = s->out = NULL, s->n = 0;
}

static void fini(void *state)
{
	drop_plan(state);
	free(state);
}

/* A plan for n (FFTW_ESTIMATE overwrites nothing), and fresh input. */
static int setup(void *state, uint64_t metric, void **sample)
{
	struct state *s = state;

	*sample = NULL;
	if (s->n != metric) {
		drop_plan(s);
		s->in = fftw_alloc_complex(metric);
		s->out = fftw_alloc_complex(metric);
		if (s->in && s->out)
			s->plan = fftw_plan_dft_1d((int)metric, s->in, s->out, FFTW_FORWARD,
						   FFTW_ESTIMATE);
		if (!s->plan) {
			drop_plan(s);
			return 1;
		}
		s->n = metric;
	}
	for (uint64_t i = 0; i < metric; i++) {
		s->x ^= s->x << 13, s->x ^= s->x >> 7, s->x ^= s->x << 17;
		s->in[i][0] = (double)(s->x & 0xffff) / 65536 - 0.5;
		s->in[i][1] = (double)(s->x >> 48) / 65536 - 0.5;
	}
	return 0;
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct state *s = state;

	(void)sample;
	(void)metric;
	double t0 = s->now();

	fftw_execute(s->plan);
	return s->now() - t0;
}

static double metric_of(const double *params, size_t n)
{
	return n == 1 && params[0] >= 1 ? params[0] : -1;
}

static const struct sibyl_adapter dft = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = "fftw-dft-1d",
	.description = "FFTW fftw_execute, complex 1D DFT, FFTW_ESTIMATE plan",
	.work_metric = "complex points n of the plan (1D DFT)", .min_metric = 16,
	.max_metric = 1u << 20, .init = init, .fini = fini, .setup = setup, .run = run,
	.params_doc = "n", .metric_of = metric_of,
};

__attribute__((visibility("default")))
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *const list[] = { &dft };

	*count = 1;
	return list;
}
