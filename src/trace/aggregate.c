/*
 * Per-function, per-thread and per-process totals (what `sibyl report`
 * shows).  A nested call (depth > 0) counts under its own function, so a
 * function's total includes the wrapped calls it makes; only depth-0 calls
 * enter the thread/process/overall busy time, which therefore never
 * counts the same nanosecond twice.  A function's self time leaves out
 * the wrapped calls made inside it (trace/calltree.c).  With a filter,
 * every figure counts the selected calls only.
 */
#include "trace/internal.h"
#include "core/alloc.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A function's durations, for its quantiles (8 bytes a selected call). */
struct durations {
	double *v;
	size_t n, cap;
};

static void add_call(struct sibyl_func_stats *f, struct durations *d,
		     const struct sibyl_trace_call *c)
{
	if (!f->calls || c->duration_ns < f->min_ns)
		f->min_ns = c->duration_ns;
	if (c->duration_ns > f->max_ns)
		f->max_ns = c->duration_ns;
	f->calls++;
	f->total_ns += c->duration_ns;
	f->self_ns += c->self_ns;
	f->in_bytes += c->in_bytes;
	f->out_bytes += c->out_bytes;
	f->work += c->work;
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		if (c->counter_mask & (1u << i)) {
			f->counter_calls[i]++;
			f->counters[i] += c->counters[i];
		}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->v = sibyl_xreallocarray(d->v, d->cap, sizeof(*d->v));
	}
	d->v[d->n++] = (double)c->duration_ns;
	f->abandoned += c->abandoned;
}

static void accumulate(const struct sibyl_trace *t, struct sibyl_trace_summary *s,
		       struct sibyl_func_stats *byfunc, struct durations *dur,
		       const struct sibyl_call_filter *filter)
{
	const struct sibyl_trace_function *base = sibyl_trace_function(t, 0);
	size_t nf = sibyl_trace_function_count(t);
	bool *fn_ok = sibyl_xcalloc(nf ? nf : 1, sizeof(*fn_ok));
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;

	/* Globs once per function, not once per call. */
	for (size_t i = 0; i < nf; i++)
		fn_ok[i] = !filter || sibyl_call_filter_function(filter, sibyl_trace_function(t, i));
	while (sibyl_trace_iter_next(it, &c)) {
		size_t fi = (size_t)(c.function - base);
		struct sibyl_thread_stats *th = &s->threads[c.thread];
		struct sibyl_process_stats *p = &s->processes[th->thread->process];

		if (!fn_ok[fi] || (filter && !sibyl_call_filter_call(filter, t, &c)))
			continue;
		add_call(&byfunc[fi], &dur[fi], &c);
		s->calls++;
		s->abandoned += c.abandoned;
		th->calls++;
		p->calls++;
		s->counters_seen |= c.counter_mask;
		s->counter_records += c.counter_mask != 0;
		if (c.depth == 0) {
			s->toplevel_ns += c.duration_ns;
			th->toplevel_ns += c.duration_ns;
			p->toplevel_ns += c.duration_ns;
		}
	}
	sibyl_trace_iter_free(it);
	free(fn_ok);
}

static const int *sort_keys;

static int cmp_key(const struct sibyl_func_stats *x, const struct sibyl_func_stats *y, int key)
{
	bool px, py;
	double a, b;

	if (key == SIBYL_SORT_NAME)
		return strcmp(x->function->name, y->function->name);
	if (key == SIBYL_SORT_LIBRARY)
		return strcmp(x->function->library, y->function->library);
	a = trace_key_value(x, key, &px);
	b = trace_key_value(y, key, &py);
	if (px != py)		/* a figure before none */
		return px ? -1 : 1;
	return !px ? 0 : a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct sibyl_func_stats *x = a, *y = b;
	int r = 0;

	for (size_t i = 0; !r && i < 4 && sort_keys[i] >= 0; i++)
		r = cmp_key(x, y, sort_keys[i]);
	if (!r)
		r = strcmp(x->function->name, y->function->name);
	if (!r)
		r = strcmp(x->function->library, y->function->library);
	return r;
}

static void swap(double *v, ptrdiff_t a, ptrdiff_t b)
{
	double x = v[a];

	v[a] = v[b];
	v[b] = x;
}

/* Put the k-th smallest of v[lo, n) at v[k], none larger before it and
 * none smaller after it (Hoare's selection, median-of-three pivots):
 * linear time on average, where sorting 5 million calls took most of
 * report's time. */
static void select_kth(double *v, ptrdiff_t lo, ptrdiff_t n, ptrdiff_t k)
{
	ptrdiff_t hi = n - 1;

	while (lo < hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;

		if (v[mid] < v[lo])
			swap(v, mid, lo);
		if (v[hi] < v[lo])
			swap(v, hi, lo);
		if (v[hi] < v[mid])
			swap(v, hi, mid);
		double pivot = v[mid];

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j)
				swap(v, i++, j--);
		}
		/* [lo, j] <= pivot <= [i, hi], and what lies between is the pivot. */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The f-quantile of v[0, n) exactly as gsl_stats_quantile_from_sorted_data
 * gives it for the sorted values (linear interpolation between the two
 * order statistics around f * (n - 1)), selecting instead of sorting; v
 * must be partitioned at *below (all before it no larger, none after it
 * smaller), as the previous, lower quantile leaves it; it is then at the
 * new one. */
static double quantile(double *v, size_t n, size_t *below, double f)
{
	const double index = f * (double)(n - 1);
	const size_t lhs = (size_t)index;
	const double delta = index - (double)lhs;
	double next;

	select_kth(v, (ptrdiff_t)*below, (ptrdiff_t)n, (ptrdiff_t)lhs);
	*below = lhs;
	if (lhs == n - 1)
		return v[lhs];
	next = v[lhs + 1];	/* the order statistic after lhs: the least above it */
	for (size_t i = lhs + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return (1 - delta) * v[lhs] + delta * next;
}

/* Median, p90, p99 and standard deviation of one function's calls.  The
 * standard deviation sums in call order (it summed in sorted order before
 * the quantiles were selected: the same to ~1e-15 relative). */
static void spread(struct sibyl_func_stats *f, struct durations *d)
{
	size_t below = 0;

	f->stddev_ns = d->n > 1 ? gsl_stats_sd_m(d->v, 1, d->n, f->mean_ns) : 0.0;
	if (!d->n)
		return;
	f->median_ns = quantile(d->v, d->n, &below, 0.5);
	f->p90_ns = quantile(d->v, d->n, &below, 0.9);
	f->p99_ns = quantile(d->v, d->n, &below, 0.99);
}

/* Keep the called functions only, with their derived figures. */
static void finish_functions(const struct sibyl_trace *t, struct sibyl_trace_summary *s,
			     struct sibyl_func_stats *byfunc, struct durations *dur,
			     const struct sibyl_summary_opts *o)
{
	size_t n = sibyl_trace_function_count(t);

	s->functions = sibyl_xcalloc(n ? n : 1, sizeof(*s->functions));
	for (size_t i = 0; i < n; i++) {
		struct sibyl_func_stats *f = &byfunc[i];
		double secs = (double)f->total_ns / 1e9;

		if (!f->calls)
			continue;
		f->function = sibyl_trace_function(t, i);
		f->mean_ns = (double)f->total_ns / (double)f->calls;
		f->share_pct = pct(f->total_ns, s->wall_ns);
		f->bytes_per_s = secs > 0 ? (double)(f->in_bytes + f->out_bytes) / secs : NAN;
		f->work_per_s = secs > 0 ? f->work / secs : NAN;
		spread(f, &dur[i]);
		s->functions[s->nfunctions++] = *f;
	}
	sort_keys = o->sort;
	qsort(s->functions, s->nfunctions, sizeof(*s->functions), cmp_func);
	s->nfunctions_all = s->nfunctions;
	if (o->top && o->top < s->nfunctions)
		s->nfunctions = o->top;
}

struct sibyl_trace_summary *sibyl_trace_summarize(const struct sibyl_trace *t,
						  enum sibyl_sort_key key)
{
	struct sibyl_summary_opts o = { .sort = { (int)key, -1 } };

	return sibyl_trace_summarize_opts(t, &o);
}

struct sibyl_trace_summary *sibyl_trace_summarize_opts(const struct sibyl_trace *t,
						       const struct sibyl_summary_opts *o)
{
	struct sibyl_trace_summary *s = sibyl_xcalloc(1, sizeof(*s));
	size_t nf = sibyl_trace_function_count(t);
	struct sibyl_func_stats *byfunc = sibyl_xcalloc(nf ? nf : 1, sizeof(*byfunc));
	struct durations *dur = sibyl_xcalloc(nf ? nf : 1, sizeof(*dur));

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
	s->filtered = o->filter != NULL;
	accumulate(t, s, byfunc, dur, o->filter);
	finish_functions(t, s, byfunc, dur, o);
	for (size_t i = 0; i < nf; i++)
		free(dur[i].v);
	free(dur);
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
