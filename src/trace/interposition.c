/*
 * The cost of interposition, measured with the runtime's own fast path:
 * the inline reserve/fill/commit of include/sibyl/wrap_rt.h, around a
 * call through a function pointer, as a generated wrapper makes it.  The
 * record buffer is this file's (its refill wraps around), so nothing is
 * written to a trace and no runtime is needed in this process.
 */
#include "trace/interposition.h"

#include "core/clock.h"

#include <stdlib.h>

/* The runtime's slow path is this file's: renamed before the header
 * declares it, so a runtime preloaded into this process keeps its own. */
#define sibyl_rt_refill interposition_refill
#include <sibyl/wrap_rt.h>

#define BATCH_CALLS 20000
#define BATCHES 7
#define RING_RECORDS 4096	/* 256 KiB, reused: the runtime's ring is too */

static struct sibyl_call_record ring[RING_RECORDS];
static uint64_t committed;
static __thread struct sibyl_rt_thread self;

struct sibyl_call_record *interposition_refill(struct sibyl_rt_thread *t)
{
	t->cur = ring;
	t->limit = ring + RING_RECORDS;
	t->committed = &committed;
	return t->cur;
}

static int __attribute__((noinline)) original(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* Resolved at run time, as a wrapper's pointer to the original is. */
static int (*volatile resolved)(int) = original;

/* What `sibyl wrap` generates for `int f(int)` (src/wrapgen: funcptr,
 * loader, caller, time, trace), recording into this file's ring. */
static int __attribute__((noinline)) wrapper(int x)
{
	static int (*real)(int);
	struct sibyl_rt_thread *t = &self;
	int result;

	if (__builtin_expect(!real, 0))
		real = resolved;
	if (__builtin_expect(t->in_runtime, 0))
		return real(x);
	t->depth++;
	uint64_t t0 = sibyl_rt_clock();

	result = real(x);
	uint64_t t1 = sibyl_rt_clock();

	t->depth--;
	sibyl_rt_emit_call(t, 1, t0, t1, 0, 0, 0);
	return result;
}

/* The program calls either the original or, preloaded, the wrapper. */
static int (*volatile entry[2])(int) = { original, wrapper };

static double batch_ns(int wrapped)
{
	int (*fn)(int) = entry[wrapped];
	int sink = 0;
	uint64_t start = sibyl_mono_ns();

	for (int i = 0; i < BATCH_CALLS; i++)
		sink += fn(i);
	__asm__ volatile("" : : "r"(sink));
	return (double)(sibyl_mono_ns() - start) / BATCH_CALLS;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double sibyl_interposition_ns(void)
{
	double added[BATCHES];

	interposition_refill(&self);
	batch_ns(0);	/* warm both paths and the ring */
	batch_ns(1);
	/* Interleaved, so a slow stretch of the machine hits both sides. */
	for (int b = 0; b < BATCHES; b++) {
		double plain = batch_ns(0);

		added[b] = batch_ns(1) - plain;
	}
	qsort(added, BATCHES, sizeof(added[0]), by_value);
	return added[BATCHES / 2] > 0 ? added[BATCHES / 2] : 0;
}
