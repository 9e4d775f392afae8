/*
 * zlib's compress2 at level 6 as a `sibyl plan` adapter (docs/adapter.md,
 * "Your own adapter"): work metric = input bytes, the bytes each traced
 * call of compress2 records (bench/plan/libs/zlib.defs).  The input is
 * log-like text (corpus.h), made once in init; each run compresses the
 * first `metric` bytes of it into a buffer of its own.  Build with -lz.
 */
#include "corpus.h"

#include <sibyl/adapter.h>

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define MAX_BYTES (16u << 20)

struct state {
	double (*now)(void);
	unsigned char *text;
};

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s || !(s->text = malloc(MAX_BYTES))) {
		free(s);
		snprintf(err, len, "out of memory for %u bytes of text", MAX_BYTES);
		return -1;
	}
	s->now = c->now;	/* config lives only during init: keep the clock */
	corpus_fill(s->text, MAX_BYTES, c->seed);
	*state = s;
	return 0;
}

static void fini(void *state)
{
	struct state *s = state;

	free(s->text);
	free(s);
}

/* The output buffer: compressBound bytes, touched so that no page fault
 * is timed (the program's buffers are reused, hence resident). */
static int setup(void *state, uint64_t metric, void **sample)
{
	size_t n = compressBound((uLong)metric);
	unsigned char *out = malloc(n);

	(void)state;
	if (!out)
		return 1;
	for (size_t i = 0; i < n; i += 4096)
		out[i] = 0;
	*sample = out;
	return 0;
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct state *s = state;
	uLongf len = compressBound((uLong)metric);
	double t0 = s->now();
	int rc = compress2(sample, &len, s->text, (uLong)metric, 6);
	double t = s->now() - t0;

	return rc == Z_OK ? t : -1;
}

static void teardown(void *state, void *sample)
{
	(void)state;
	free(sample);
}

static double metric_of(const double *params, size_t n)
{
	return n == 1 && params[0] >= 0 ? params[0] : -1;
}

static const struct sibyl_adapter zlib6 = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = "zlib-compress2-6",
	.description = "zlib compress2, level 6, log-like text", .work_metric = "input bytes",
	.min_metric = 1, .max_metric = MAX_BYTES, .init = init, .fini = fini, .setup = setup,
	.run = run, .teardown = teardown, .params_doc = "sourceLen", .metric_of = metric_of,
};

__attribute__((visibility("default")))
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *const list[] = { &zlib6 };

	*count = 1;
	return list;
}
