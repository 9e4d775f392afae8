/*
 * From TSC ticks to CLOCK_MONOTONIC ns, and the wall time of the traced
 * command.  meta.json's calibration wins; without it (runtime preloaded
 * by hand, tracer killed) the .proc files' (tsc, ns) pairs stand in: the
 * two farthest apart give the best rate.
 */
#include "trace/internal.h"
#include "core/log.h"

#include <math.h>

uint64_t sibyl_trace_tsc_to_ns(const struct sibyl_trace *t, uint64_t tsc)
{
	const struct sibyl_trace_clock *c = &t->meta.meta.clock;
	/* Subtract as integers first: TSC values exceed double's 53 bits. */
	double d = tsc >= c->ref_tsc ? (double)(tsc - c->ref_tsc) : -(double)(c->ref_tsc - tsc);
	double ns = (double)c->ref_ns + d / c->tsc_per_ns;

	if (!(ns > 0))
		return 0;
	return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(ns);
}

struct point {
	uint64_t tsc, ns;
};

static void consider(struct point *lo, struct point *hi, uint64_t tsc, uint64_t ns, int *n)
{
	if (!tsc)
		return;
	if (!*n || tsc < lo->tsc)
		*lo = (struct point){ tsc, ns };
	if (!*n || tsc > hi->tsc)
		*hi = (struct point){ tsc, ns };
	(*n)++;
}

int timebase_clock(struct sibyl_trace *t, const char *dir, char *err, size_t errlen)
{
	struct sibyl_trace_clock *c = &t->meta.meta.clock;
	struct point lo = { 0, 0 }, hi = { 0, 0 };
	int n = 0;

	if (t->meta.has_clock)
		return 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct proc_file *p = &t->procs[i];

		if (!p->info.has_proc_file)
			continue;
		consider(&lo, &hi, p->start_tsc, p->info.start_ns, &n);
		if (p->info.exited)
			consider(&lo, &hi, p->end_tsc, p->info.end_ns, &n);
	}
	c->source = SIBYL_CLOCK_PROC;
	if (hi.tsc > lo.tsc && hi.ns > lo.ns) {
		c->ref_tsc = lo.tsc;
		c->ref_ns = lo.ns;
		c->tsc_per_ns = (double)(hi.tsc - lo.tsc) / (double)(hi.ns - lo.ns);
		return 0;
	}
	c->tsc_per_ns = 1;	/* nothing to convert: any rate will do */
	if (!t->ncalls)
		return 0;
	return sibyl_seterr(err, errlen,
			    "%s: cannot convert TSC to time: no clock in meta.json and fewer "
			    "than two (tsc, ns) points in the .proc files (no process exited "
			    "normally?)",
			    dir);
}

static void thread_spans(struct sibyl_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		struct trace_thread_file *th = &t->threads[i];
		struct sibyl_trace_process *p = &t->procs[th->info.process].info;

		if (!th->info.calls)
			continue;
		th->info.first_ns = sibyl_trace_tsc_to_ns(t, th->first_tsc);
		th->info.last_ns = sibyl_trace_tsc_to_ns(t, th->last_tsc);
		if (!p->has_proc_file && (!p->start_ns || th->info.first_ns < p->start_ns))
			p->start_ns = th->info.first_ns;
		/* A process that never exited ran at least until its last call. */
		if (!p->exited && th->info.last_ns > p->end_ns)
			p->end_ns = th->info.last_ns;
	}
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].info.end_ns < t->procs[i].info.start_ns)
			t->procs[i].info.end_ns = t->procs[i].info.start_ns;
}

void timebase_spans(struct sibyl_trace *t)
{
	struct sibyl_trace_meta *m = &t->meta.meta;
	uint64_t start = UINT64_MAX, end = 0;
	bool any_proc = false;

	thread_spans(t);
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct sibyl_trace_process *p = &t->procs[i].info;

		any_proc |= p->has_proc_file;
		start = p->start_ns < start ? p->start_ns : start;
		end = p->end_ns > end ? p->end_ns : end;
	}
	if (t->meta.has_wall) {
		m->wall_source = SIBYL_WALL_META;
		if (!m->start_ns && !m->end_ns) {
			m->start_ns = start == UINT64_MAX ? 0 : start;
			m->end_ns = m->start_ns + m->wall_ns;
		}
		return;
	}
	m->wall_source = any_proc ? SIBYL_WALL_PROC : SIBYL_WALL_EVENTS;
	m->start_ns = start == UINT64_MAX ? 0 : start;
	m->end_ns = end > m->start_ns ? end : m->start_ns;
	m->wall_ns = m->end_ns - m->start_ns;
}
