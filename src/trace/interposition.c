/*
 * The cost of interposition, measured with the runtime's own fast path:
 * the inline reserve/fill/commit of include/sibyl/wrap_rt.h, around a
 * call through a function pointer, as a generated wrapper makes it.  The
 * record buffer is this file's (its refill wraps around), so nothing is
 * written to a trace and no runtime is needed in this process.  The
 * counters generator's reads and a page fault are timed the same way the
 * runtime and a program meet them.
 */
#define _GNU_SOURCE
#include "trace/interposition.h"

#include "core/clock.h"

#include <gsl/gsl_statistics_double.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The runtime's slow paths are this file's: renamed before the header
 * declares them, so a runtime preloaded into this process keeps its own.
 * The calls timed here always return: the abandon paths never run. */
#define sibyl_rt_refill interposition_refill
#define sibyl_rt_abandon_above interposition_abandon_above
#define sibyl_rt_abandon_from interposition_abandon_from
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

uint32_t interposition_abandon_above(struct sibyl_rt_thread *t, uintptr_t cfa)
{
	(void)cfa;
	return t->depth;
}

void interposition_abandon_from(struct sibyl_rt_thread *t, uint32_t depth)
{
	(void)t;
	(void)depth;
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

	__asm__("" : "+r"(t));	/* as sibyl_rt_self() hands it out */

	if (__builtin_expect(!real, 0))
		real = resolved;
	if (__builtin_expect(sibyl_rt_busy(t) != 0, 0))
		return real(x);
	uint32_t d = sibyl_rt_enter(t, 1, sibyl_rt_sp(), (uintptr_t)__builtin_dwarf_cfa());
	uint64_t t0 = sibyl_rt_clock();

	sibyl_rt_started(t, d, t0);
	result = real(x);
	uint64_t t1 = sibyl_rt_clock();

	sibyl_rt_leave(t, d);
	sibyl_rt_emit_returned(t, 1, t0, t1, 0, 0, 0, 0, 0, d);
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

static double wrapper_ns(void)
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
	return fmax(0, gsl_stats_median(added, 1, BATCHES));
}

static int perf_open(uint64_t config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/*
 * The kernel runs perf's context-switch hooks only while some per-task
 * event exists (a static key, patched into its text), and turns them off
 * about a second after the last one closes.  The first counter a traced
 * program opened then waited for the patching: 7-15 ms here, inside its
 * measured time, in one run of four started a second or more after the
 * previous one (a bench's rhythm), and only when its wrappers count.
 * An event held by sibyl trace from before the command starts until it
 * ends keeps the hooks on; it counts sibyl's own task, which then sleeps.
 * Only wrappers that count want it (trace_preload.c finds them).
 */
int sibyl_perf_hooks_hold(void)
{
	return perf_open(PERF_COUNT_SW_TASK_CLOCK, -1);
}

void sibyl_perf_hooks_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

#define COUNTER_CALLS 500

/* The counters generator reads its group before and after each call,
 * checking the leader's id first (src/rt/counters.c), and stores a
 * second record. */
static double counters_ns(void)
{
	int leader = perf_open(PERF_COUNT_SW_TASK_CLOCK, -1);
	int member = leader < 0 ? -1 : perf_open(PERF_COUNT_SW_PAGE_FAULTS, leader);
	double per[BATCHES] = { 0 };
	uint64_t id, buf[8];

	for (int b = 0; member >= 0 && b < BATCHES; b++) {
		uint64_t start = sibyl_mono_ns();

		for (int i = 0; i < 2 * COUNTER_CALLS; i++) {
			if (ioctl(leader, PERF_EVENT_IOC_ID, &id) || read(leader, buf, sizeof(buf)) < 8)
				break;
			if (i % 2)
				sibyl_rt_emit_call(&self, 2, 0, 0, 0, 0, 0);
		}
		per[b] = (double)(sibyl_mono_ns() - start) / COUNTER_CALLS;
	}
	if (member >= 0)
		close(member);
	if (leader >= 0)
		close(leader);
	return member < 0 ? NAN : gsl_stats_median(per, 1, BATCHES);
}

#define FAULT_PAGES 64

/* A program's first store into fresh memory (a new result array) takes
 * a page fault per 4 KiB page, inside whatever call makes it. */
static double page_fault_ns(void)
{
	double per[BATCHES];

	for (int b = 0; b < BATCHES; b++) {
		char *m = mmap(NULL, FAULT_PAGES * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NAN;
		uint64_t start = sibyl_mono_ns();

		for (int i = 0; i < FAULT_PAGES; i++)
			((volatile char *)m)[i * 4096] = 1;
		per[b] = (double)(sibyl_mono_ns() - start) / FAULT_PAGES;
		munmap(m, FAULT_PAGES * 4096);
	}
	return gsl_stats_median(per, 1, BATCHES);
}

void sibyl_interposition_measure(struct sibyl_interposition_costs *c, bool counters)
{
	c->per_call_ns = wrapper_ns();
	c->counters_ns = counters ? counters_ns() : NAN;
	c->page_fault_ns = page_fault_ns();
}
