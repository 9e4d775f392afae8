/*
 * zlib's compress2 at level 6 as a `sibyl plan` adapter (docs/adapter.md,
 * "Your own adapter"): work metric = input bytes, the bytes each traced
 * call of compress2 records (bench/plan/libs/zlib.defs).  The input is
 * log-like text (corpus.h), made once in init; each run compresses the
 * first `metric` bytes of it.  The output buffer is made once too, as
 * a program's is: a buffer malloc'd and freed per run (an early version)
 * made glibc raise its heap trim threshold, so zlib's 256 KiB of state
 * stayed mapped between runs, where in a program that frees no large
 * buffer the heap is trimmed after each call and the state faulted in
 * again: calls of a few KiB ran 2.5 times slower in the program than
 * the profile said.  Build with -lz.
 */
#include "corpus.h"

#include <sibyl/adapter.h>

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define MAX_BYTES (16u << 20)

struct state {
	double (*now)(void);
	unsigned char *text, *out;
};

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s || !(s->text = malloc(MAX_BYTES)) || !(s->out = malloc(compressBound(MAX_BYTES)))) {
		if (s)
			free(s->text);
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
	free(s->out);
	free(s);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct state *s = state;
	uLongf len = compressBound((uLong)metric);

	(void)sample;
	double t0 = s->now();
	int rc = compress2(s->out, &len, s->text, (uLong)metric, 6);
	double t = s->now() - t0;

	return rc == Z_OK ? t : -1;
}

static double metric_of(const double *params, size_t n)
{
	return n == 1 && params[0] >= 0 ? params[0] : -1;
}

static const struct sibyl_adapter zlib6 = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = "zlib-compress2-6",
	.description = "zlib compress2, level 6, log-like text", .work_metric = "input bytes",
	.min_metric = 1, .max_metric = MAX_BYTES, .init = init, .fini = fini, .run = run,
	.params_doc = "sourceLen", .metric_of = metric_of,
};

__attribute__((visibility("default")))
const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *const list[] = { &zlib6 };

	*count = 1;
	return list;
}
