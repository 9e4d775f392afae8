/*
 * Per-function, per-thread and per-process totals (what `sibyl report`
 * shows).  A nested call (depth > 0) counts under its own function, so a
 * function's total includes the wrapped calls it makes; only depth-0 calls
 * enter the thread/process/overall busy time, which therefore never
 * counts the same nanosecond twice.
 */
#include "trace/internal.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void add_call(struct sibyl_func_stats *f, const struct sibyl_trace_call *c)
{
	if (!f->calls || c->duration_ns < f->min_ns)
		f->min_ns = c->duration_ns;
	if (c->duration_ns > f->max_ns)
		f->max_ns = c->duration_ns;
	f->calls++;
	f->total_ns += c->duration_ns;
	f->in_bytes += c->in_bytes;
	f->out_bytes += c->out_bytes;
	f->work += c->work;
}

static void accumulate(const struct sibyl_trace *t, struct sibyl_trace_summary *s,
		       struct sibyl_func_stats *byfunc)
{
	const struct sibyl_trace_function *base = sibyl_trace_function(t, 0);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;

	while (sibyl_trace_iter_next(it, &c)) {
		struct sibyl_thread_stats *th = &s->threads[c.thread];
		struct sibyl_process_stats *p = &s->processes[th->thread->process];

		add_call(&byfunc[c.function - base], &c);
		s->calls++;
		th->calls++;
		p->calls++;
		if (c.depth == 0) {
			s->toplevel_ns += c.duration_ns;
			th->toplevel_ns += c.duration_ns;
			p->toplevel_ns += c.duration_ns;
		}
	}
	sibyl_trace_iter_free(it);
}

static enum sibyl_sort_key sort_key;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct sibyl_func_stats *x = a, *y = b;
	int r = 0;

	switch (sort_key) {
	case SIBYL_SORT_CALLS:
		r = cmp_u64_desc(x->calls, y->calls);
		break;
	case SIBYL_SORT_MEAN:
		r = x->mean_ns < y->mean_ns ? 1 : x->mean_ns > y->mean_ns ? -1 : 0;
		break;
	case SIBYL_SORT_TOTAL:
		r = cmp_u64_desc(x->total_ns, y->total_ns);
		break;
	case SIBYL_SORT_NAME:
		break;
	}
	if (!r)
		r = strcmp(x->function->name, y->function->name);
	if (!r)
		r = strcmp(x->function->library, y->function->library);
	return r;
}

/* Keep the called functions only, with their derived figures. */
static void finish_functions(const struct sibyl_trace *t, struct sibyl_trace_summary *s,
			     struct sibyl_func_stats *byfunc, enum sibyl_sort_key key)
{
	size_t n = sibyl_trace_function_count(t);

	s->functions = sibyl_xcalloc(n ? n : 1, sizeof(*s->functions));
	for (size_t i = 0; i < n; i++) {
		struct sibyl_func_stats *f = &byfunc[i];

		if (!f->calls)
			continue;
		f->function = sibyl_trace_function(t, i);
		f->mean_ns = (double)f->total_ns / (double)f->calls;
		f->share_pct = pct(f->total_ns, s->wall_ns);
		s->functions[s->nfunctions++] = *f;
	}
	sort_key = key;
	qsort(s->functions, s->nfunctions, sizeof(*s->functions), cmp_func);
}

struct sibyl_trace_summary *sibyl_trace_summarize(const struct sibyl_trace *t,
						  enum sibyl_sort_key key)
{
	struct sibyl_trace_summary *s = sibyl_xcalloc(1, sizeof(*s));
	size_t nf = sibyl_trace_function_count(t);
	struct sibyl_func_stats *byfunc = sibyl_xcalloc(nf ? nf : 1, sizeof(*byfunc));

	s->wall_ns = sibyl_trace_meta(t)->wall_ns;
	s->nthreads = sibyl_trace_thread_count(t);
	s->nprocesses = sibyl_trace_process_count(t);
	s->threads = sibyl_xcalloc(s->nthreads ? s->nthreads : 1, sizeof(*s->threads));
	s->processes = sibyl_xcalloc(s->nprocesses ? s->nprocesses : 1, sizeof(*s->processes));
	for (size_t i = 0; i < s->nprocesses; i++) {
		const struct sibyl_trace_process *p = sibyl_trace_process(t, i);

		s->processes[i].process = p;
		s->processes[i].lifetime_ns = p->end_ns - p->start_ns;
		s->lost_threads += p->lost_threads;
		s->lost_calls += p->lost_calls;
	}
	for (size_t i = 0; i < s->nthreads; i++) {
		s->threads[i].thread = sibyl_trace_thread(t, i);
		s->processes[s->threads[i].thread->process].threads++;
	}
	accumulate(t, s, byfunc);
	finish_functions(t, s, byfunc, key);
	free(byfunc);
	s->toplevel_share_pct = pct(s->toplevel_ns, s->wall_ns);
	for (size_t i = 0; i < s->nthreads; i++)
		s->threads[i].share_pct = pct(s->threads[i].toplevel_ns, s->wall_ns);
	for (size_t i = 0; i < s->nprocesses; i++)
		s->processes[i].share_pct =
			pct(s->processes[i].toplevel_ns, s->processes[i].lifetime_ns);
	return s;
}

void sibyl_trace_summary_free(struct sibyl_trace_summary *s)
{
	if (!s)
		return;
	free(s->functions);
	free(s->threads);
	free(s->processes);
	free(s);
}
