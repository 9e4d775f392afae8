/*
 * The cost of interposition in a prediction.  Every wrapped call of the
 * traced run cost the program the wrapper and the runtime's recording
 * (`sibyl trace` measures that per call, meta.json "interposition"):
 * the run without sibyl does not pay it, the accelerated run traced pays
 * it again, except for the calls made inside accelerated calls (the
 * reference cblas_dgemm calls dgemm_, OpenBLAS's does not call back into
 * the wrapped library): their cost is in the replaced time and goes
 * with it.  docs/predict.md, "Interposition".
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "sibyl/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct span {
	size_t thread;
	uint64_t start, end;
	uint16_t depth;
};

static int by_thread_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The last span at or before (thread, start), or NULL. */
static const struct span *span_before(const struct span *v, size_t n, size_t thread,
				      uint64_t start)
{
	size_t lo = 0, hi = n;	/* answer in [lo, hi) is the first after */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].thread < thread || (v[mid].thread == thread && v[mid].start <= start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &v[lo - 1] : NULL;
}

static struct span *accelerated_spans(const struct predict_calls *calls, size_t *n)
{
	struct span *acc = sibyl_xcalloc(calls->n ? calls->n : 1, sizeof(*acc));

	*n = 0;
	for (size_t i = 0; i < calls->n; i++)
		if (calls->v[i].accelerated)
			acc[(*n)++] = (struct span){ calls->v[i].thread, calls->v[i].start_ns,
						     calls->v[i].end_ns, calls->v[i].depth };
	qsort(acc, *n, sizeof(*acc), by_thread_start);
	return acc;
}

/* Accelerated calls of a thread never overlap (a modelled call inside
 * another is counted with it), so the last one starting before a call
 * is the only one that can hold it. */
static bool inside(const struct span *acc, size_t n, const struct sibyl_trace_call *c)
{
	const struct span *s = span_before(acc, n, c->thread, c->start_ns);

	return s && s->thread == c->thread && c->depth > s->depth && c->end_ns <= s->end;
}

void predict_interposition(const struct sibyl_trace *t, struct sibyl_prediction *p)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);
	double call = m->interposition_ns * 1e-9, counters = m->counters_ns * 1e-9;
	struct sibyl_trace_iter *it = isnan(call) ? NULL : sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;
	size_t n;
	struct span *acc = accelerated_spans(p->calls, &n);

	memset(&p->interposition, 0, sizeof(p->interposition));
	p->interposition.known = it != NULL;
	p->interposition.per_call_s = it ? call : 0;
	p->interposition.startup_known = !isnan(m->startup_ns);
	p->interposition.startup_s = p->interposition.startup_known ? m->startup_ns * 1e-9 : 0;
	memcpy(p->interposition.startup_why, m->startup_why, sizeof(m->startup_why));
	/* Dropped records were calls too: they ran through the wrapper. */
	for (size_t i = 0; i < sibyl_trace_thread_count(t); i++) {
		p->interposition.calls += sibyl_trace_thread(t, i)->dropped;
		p->interposition.total_s += (double)sibyl_trace_thread(t, i)->dropped * call;
	}
	while (it && sibyl_trace_iter_next(it, &c) == 1) {
		/* The counters generator reads its counters around the call. */
		double cost = call + (c.counter_mask && !isnan(counters) ? counters : 0);
		bool gone = n && inside(acc, n, &c);

		p->interposition.calls++;
		p->interposition.total_s += cost;
		p->interposition.inside += gone;
		p->interposition.inside_s += gone ? cost : 0;
	}
	if (!it)
		for (size_t i = 0; i < sibyl_trace_thread_count(t); i++)
			p->interposition.calls += sibyl_trace_thread(t, i)->calls;
	sibyl_trace_iter_free(it);
	free(acc);
	p->interposition.share = p->total_s > 0 ? p->interposition.total_s / p->total_s : 0;
}
