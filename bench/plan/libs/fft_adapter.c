/*
 * FFTW's fftw_execute of a complex 1D DFT as a `sibyl plan` adapter.
 * fftw_execute takes only a plan, so its work metric is the size n given
 * when the plan was made: the traced program's wrapper remembers each
 * plan's n (bench/plan/libs/fftw_plans.gen, fftw.defs) and declares the
 * metric below.  Plans are made as a program makes them, FFTW_ESTIMATE,
 * once per size and kept, with their buffers, as a program keeps the
 * plans of the sizes it calls again (bench/plan/libs/fft_app.c): a
 * replayed trace (`plan --replay`) alternates sizes call by call, and a
 * plan made afresh at each change would time a first execution, its
 * output pages faulted in (65536 points: 6 ms against 0.8 ms), where the
 * program's calls mostly reuse a plan.  A new size's first execution
 * faults its output in, as the program's does: a replay times it apart
 * (planner/first_calls.h) and the prediction charges it to the
 * program's first call at that size.  Each run gets fresh input.  Time is a
 * staircase in n: sizes with large prime factors run many times slower
 * than their neighbours.  Build with -lfftw3 -lm.
 */
#include <sibyl/adapter.h>

#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>

/* Plans kept: the least recently used goes when a new size needs a
 * slot or the buffers would pass KEPT_BYTES (an adaptive plan over the
 * whole range meets hundreds of sizes up to 2^20, 32 MiB each). */
#define KEPT 32
#define KEPT_BYTES (256u << 20)

struct kept {
	uint64_t n, used;
	fftw_complex *in, *out;
	fftw_plan plan;
};

struct state {
	double (*now)(void);
	uint64_t x, clock;
	struct kept k[KEPT];
	struct kept *cur;
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

static void drop(struct kept *k)
{
	if (k->plan)
		fftw_destroy_plan(k->plan);
	fftw_free(k->in);
	fftw_free(k->out);
	*k = (struct kept){ 0 };
}

static void fini(void *state)
{
	struct state *s = state;

	for (int i = 0; i < KEPT; i++)
		drop(&s->k[i]);
	free(s);
}

static uint64_t kept_bytes(const struct state *s)
{
	uint64_t b = 0;

	for (int i = 0; i < KEPT; i++)
		b += 2 * s->k[i].n * sizeof(fftw_complex);
	return b;
}

/* A free slot for a new plan of n points: the least recently used
 * plans go while every slot is taken or the buffers would pass
 * KEPT_BYTES with n's. */
static struct kept *free_slot(struct state *s, uint64_t n)
{
	for (;;) {
		struct kept *lru = NULL, *empty = NULL;

		for (int i = 0; i < KEPT; i++)
			if (!s->k[i].plan)
				empty = &s->k[i];
			else if (!lru || s->k[i].used < lru->used)
				lru = &s->k[i];
		if (empty && (!lru || kept_bytes(s) + 2 * n * sizeof(fftw_complex) <= KEPT_BYTES))
			return empty;
		drop(lru);
	}
}

/* n's plan, made on first use, its output left for the first execution
 * to fault in, as a program's is. */
static struct kept *plan_for(struct state *s, uint64_t n)
{
	for (int i = 0; i < KEPT; i++)
		if (s->k[i].plan && s->k[i].n == n)
			return &s->k[i];
	struct kept *k = free_slot(s, n);

	k->in = fftw_alloc_complex(n);
	k->out = fftw_alloc_complex(n);
	if (k->in && k->out)
		k->plan = fftw_plan_dft_1d((int)n, k->in, k->out, FFTW_FORWARD, FFTW_ESTIMATE);
	if (!k->plan) {
		drop(k);
		return NULL;
	}
	k->n = n;
	return k;
}

/* n's plan, and fresh input. */
static int setup(void *state, uint64_t metric, void **sample)
{
	struct state *s = state;

	*sample = NULL;
	s->cur = plan_for(s, metric);
	if (!s->cur)
		return 1;
	s->cur->used = ++s->clock;
	for (uint64_t i = 0; i < metric; i++) {
		s->x ^= s->x << 13, s->x ^= s->x >> 7, s->x ^= s->x << 17;
		s->cur->in[i][0] = (double)(s->x & 0xffff) / 65536 - 0.5;
		s->cur->in[i][1] = (double)(s->x >> 48) / 65536 - 0.5;
	}
	return 0;
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct state *s = state;

	(void)sample;
	(void)metric;
	double t0 = s->now();

	fftw_execute(s->cur->plan);
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
