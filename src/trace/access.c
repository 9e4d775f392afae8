/* Accessors of an open trace and the iterator over its call records. */
#include "trace/internal.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

const struct sibyl_trace_meta *sibyl_trace_meta(const struct sibyl_trace *t)
{
	return &t->meta.meta;
}

size_t sibyl_trace_process_count(const struct sibyl_trace *t)
{
	return t->nprocs;
}

const struct sibyl_trace_process *sibyl_trace_process(const struct sibyl_trace *t, size_t i)
{
	return i < t->nprocs ? &t->procs[i].info : NULL;
}

size_t sibyl_trace_thread_count(const struct sibyl_trace *t)
{
	return t->nthreads;
}

const struct sibyl_trace_thread *sibyl_trace_thread(const struct sibyl_trace *t, size_t i)
{
	return i < t->nthreads ? &t->threads[i].info : NULL;
}

size_t sibyl_trace_function_count(const struct sibyl_trace *t)
{
	return t->functions.count;
}

const struct sibyl_trace_function *sibyl_trace_function(const struct sibyl_trace *t, size_t i)
{
	return i < t->functions.count ? &t->functions.items[i] : NULL;
}

const struct sibyl_trace_function *sibyl_trace_function_by_id(const struct sibyl_trace *t,
							      uint32_t id)
{
	return functions_find(&t->functions, id);
}

uint64_t sibyl_trace_call_count(const struct sibyl_trace *t)
{
	return t->ncalls;
}

struct sibyl_trace_iter {
	const struct sibyl_trace *t;
	size_t thread;
	bool started;
	struct events_cursor cur;
	struct sibyl_events_info info;
	uint64_t next_id;		/* ids given so far */
	struct calltree tree;		/* self times of the current thread */
	bool parents;			/* sibyl_trace_iter_parents() */
	uint64_t *parent_of;		/* of the current thread's calls, by id - base */
	uint64_t base;			/* id of its first call */
};

struct sibyl_trace_iter *sibyl_trace_iter_new(const struct sibyl_trace *t)
{
	struct sibyl_trace_iter *it = sibyl_xcalloc(1, sizeof(*it));

	it->t = t;
	return it;
}

void sibyl_trace_iter_parents(struct sibyl_trace_iter *it)
{
	it->parents = true;
}

static void fill_worksize(const struct events_attached *att, struct sibyl_trace_call *out)
{
	for (int m = 1; m < SIBYL_WS_METHODS; m++) {
		const struct sibyl_worksize_record *w = &att->ws[m];

		if (!w->kind)
			continue;
		out->ws_mask |= (uint8_t)(1u << m);
		out->ws_manual |= (w->flags & SIBYL_WS_MANUAL) != 0;
		out->ws[m].in_bytes = w->in_bytes;
		out->ws[m].out_bytes = w->out_bytes;
		out->ws[m].inout_bytes = w->inout_bytes;
	}
}

static void fill_call(const struct sibyl_trace_iter *it, const struct sibyl_call_record *r,
		      const struct events_attached *att, struct sibyl_trace_call *out)
{
	const struct sibyl_trace *t = it->t;
	double rate = t->meta.meta.clock.tsc_per_ns;

	memset(out, 0, sizeof(*out));
	out->thread = it->thread;
	out->function = functions_find(&t->functions, r->func);	/* added at open */
	out->depth = r->depth;
	out->abandoned = (r->flags & SIBYL_CALL_ABANDONED) != 0;
	out->start_ns = sibyl_trace_tsc_to_ns(t, r->start_tsc);
	out->end_ns = sibyl_trace_tsc_to_ns(t, r->end_tsc);
	/* From the tick delta, not end_ns - start_ns: no double rounding. */
	if (r->end_tsc > r->start_tsc)
		out->duration_ns = (uint64_t)((double)(r->end_tsc - r->start_tsc) / rate + 0.5);
	if (out->end_ns < out->start_ns)
		out->end_ns = out->start_ns;
	out->in_bytes = r->in_bytes;
	out->out_bytes = r->out_bytes;
	out->size_method = r->size_method;	/* 0 before version 3 (events.c) */
	out->inout_bytes = r->inout_bytes;
	out->work = r->work;
	out->counter_mask = att->cnt.mask & ((1u << SIBYL_CNT_MAX) - 1);
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		if (out->counter_mask & (1u << i))
			out->counters[i] = att->cnt.value[i];
	fill_worksize(att, out);
}

/* Parents of the thread about to be read: one pass over its records
 * (a parent is written after the calls it made). */
static void find_parents(struct sibyl_trace_iter *it, const struct trace_thread_file *th)
{
	struct events_cursor cur = th->records;
	struct sibyl_events_info info = { 0 };
	struct sibyl_call_record call;
	struct events_attached att;
	struct sibyl_trace_call c;
	uint64_t id = it->base;

	free(it->parent_of);
	it->parent_of = sibyl_xcalloc(th->info.calls ? th->info.calls : 1, sizeof(uint64_t));
	calltree_reset(&it->tree);
	while (events_next(&cur, &call, &att, &info) && id - it->base < th->info.calls) {
		fill_call(it, &call, &att, &c);
		calltree_feed(&it->tree, &c, id, it->parent_of, it->base);
		id++;
	}
	calltree_reset(&it->tree);
}

int sibyl_trace_iter_next(struct sibyl_trace_iter *it, struct sibyl_trace_call *out)
{
	struct sibyl_call_record call;
	struct events_attached att;

	while (it->thread < it->t->nthreads) {
		const struct trace_thread_file *th = &it->t->threads[it->thread];

		if (!it->started) {
			it->cur = th->records;
			it->base = it->next_id + 1;
			calltree_reset(&it->tree);
			if (it->parents)
				find_parents(it, th);
		}
		it->started = true;
		if (events_next(&it->cur, &call, &att, &it->info)) {
			fill_call(it, &call, &att, out);
			out->id = ++it->next_id;
			out->self_ns = calltree_feed(&it->tree, out, out->id, NULL, 0);
			if (it->parents && out->id - it->base < th->info.calls)
				out->parent = it->parent_of[out->id - it->base];
			return 1;
		}
		it->thread++;
		it->started = false;
	}
	return 0;
}

void sibyl_trace_iter_free(struct sibyl_trace_iter *it)
{
	if (!it)
		return;
	calltree_free(&it->tree);
	free(it->parent_of);
	free(it);
}
