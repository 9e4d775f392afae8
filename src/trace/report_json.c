
/*
 * `sibyl report --json`: one object whose field names other tools rely
 * on (docs/report.md) -- rename nothing here, only add.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* jansson rejects invalid UTF-8; a path or symbol may contain any byte. */
json_t *trace_jstr(const char *s)
{
	json_t *v = json_string(s);

	if (!v) {
		char *copy = sibyl_xstrdup(s);

		for (unsigned char *p = (unsigned char *)copy; *p; p++)
			if (*p >= 0x80)
				*p = '?';
		v = json_string(copy);
		free(copy);
	}
	return v;
}

/* The figures added after the first release of the format: self time,
 * spread, rates and counters (null: not measured). */
static void json_spread(json_t *o, const struct sibyl_func_stats *f)
{
	json_t *cnt = json_object();

	json_object_set_new(o, "self_ns", u64(f->self_ns));
	json_object_set_new(o, "median_ns", json_real(f->median_ns));
	json_object_set_new(o, "p90_ns", json_real(f->p90_ns));
	json_object_set_new(o, "p99_ns", json_real(f->p99_ns));
	json_object_set_new(o, "stddev_ns", json_real(f->stddev_ns));
	json_object_set_new(o, "bytes_per_s", sibyl_json_real_or_null(f->bytes_per_s));
	json_object_set_new(o, "work_per_s", sibyl_json_real_or_null(f->work_per_s));
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		json_object_set_new(cnt, sibyl_counter_name(i),
				    f->counter_calls[i]
					    ? json_pack("{s:o, s:o}", "calls",
							u64(f->counter_calls[i]), "total",
							u64(f->counters[i]))
					    : json_null());
	json_object_set_new(o, "counters", cnt);
}

static json_t *json_functions(const struct sibyl_trace_summary *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nfunctions; i++) {
		const struct sibyl_func_stats *f = &s->functions[i];

		json_array_append_new(a, json_pack("{s:o, s:o, s:I, s:o, s:o, s:f, s:o, s:o, "
						   "s:f, s:o, s:o, s:f}",
			"name", trace_jstr(f->function->name), "library", trace_jstr(f->function->library),
			"id", (json_int_t)f->function->id, "calls", u64(f->calls),
			"total_ns", u64(f->total_ns), "mean_ns", f->mean_ns,
			"min_ns", u64(f->min_ns), "max_ns", u64(f->max_ns),
			"share_pct", f->share_pct, "in_bytes", u64(f->in_bytes),
			"out_bytes", u64(f->out_bytes), "work", f->work));
		json_spread(json_array_get(a, json_array_size(a) - 1), f);
		json_object_set_new(json_array_get(a, json_array_size(a) - 1), "abandoned",
				    u64(f->abandoned));
	}
	return a;
}

static json_t *json_threads(const struct sibyl_trace_summary *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nthreads; i++) {
		const struct sibyl_thread_stats *th = &s->threads[i];

		json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:o, s:o, s:f, s:o, s:o, "
						   "s:o, s:o}",
			"pid", (json_int_t)th->thread->pid, "gen", (json_int_t)th->thread->gen,
			"tid", (json_int_t)th->thread->tid, "calls", u64(th->calls),
			"toplevel_ns", u64(th->toplevel_ns), "share_pct", th->share_pct,
			"records", u64(th->thread->records), "dropped", u64(th->thread->dropped),
			"torn", u64(th->thread->torn), "skipped", u64(th->thread->skipped)));
	}
	return a;
}

static const char *const end_names[] = {
	[SIBYL_END_UNKNOWN] = "unknown", [SIBYL_END_EXIT] = "exit",
	[SIBYL_END_SIGNAL] = "signal", [SIBYL_END_EXEC] = "exec",
};

/* The exit status or signal number; null for exec and unknown. */
static json_t *end_code(const struct sibyl_trace_process *p)
{
	if (p->end == SIBYL_END_EXIT || p->end == SIBYL_END_SIGNAL)
		return json_integer(p->end_code);
	return json_null();
}

static json_t *json_processes(const struct sibyl_trace_summary *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nprocesses; i++) {
		const struct sibyl_process_stats *p = &s->processes[i];

		json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:o, "
						   "s:f, s:o, s:o, s:b, s:s, s:o, s:o, s:o}",
			"pid", (json_int_t)p->process->pid, "ppid", (json_int_t)p->process->ppid,
			"gen", (json_int_t)p->process->gen, "exe", trace_jstr(p->process->exe),
			"threads", (json_int_t)p->threads, "calls", u64(p->calls),
			"toplevel_ns", u64(p->toplevel_ns), "lifetime_ns", u64(p->lifetime_ns),
			"share_pct", p->share_pct, "start_ns", u64(p->process->start_ns),
			"end_ns", u64(p->process->end_ns), "exited", p->process->exited,
			"end", end_names[p->process->end], "end_code", end_code(p->process),
			"lost_threads", u64(p->process->lost_threads),
			"lost_calls", u64(p->process->lost_calls)));
	}
	return a;
}

static json_t *json_exit(const struct sibyl_trace_meta *m)
{
	if (m->exit_kind == SIBYL_EXIT_STATUS)
		return json_pack("{s:i}", "status", m->exit_code);
	if (m->exit_kind == SIBYL_EXIT_SIGNAL)
		return json_pack("{s:i}", "signal", m->exit_code);
	return json_null();
}

int sibyl_report_print_json(FILE *out, const struct sibyl_trace *t,
			    const struct sibyl_trace_summary *s)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);
	json_t *cmd = json_array(), *root;
	int ret;

	for (size_t i = 0; i < m->argc; i++)
		json_array_append_new(cmd, trace_jstr(m->argv[i]));
	root = json_pack("{s:o, s:o, s:b, s:o, s:o, s:f, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "command", cmd, "exit", json_exit(m), "complete", m->complete,
			 "wall_ns", u64(s->wall_ns),
			 "toplevel_ns", u64(s->toplevel_ns), "toplevel_share_pct",
			 s->toplevel_share_pct, "calls", u64(s->calls),
			 "lost_threads", u64(s->lost_threads), "lost_calls", u64(s->lost_calls),
			 "functions", json_functions(s), "threads", json_threads(s),
			 "processes", json_processes(s));
	if (!root)
		return -1;
	json_object_set_new(root, "abandoned", u64(s->abandoned));
	json_object_set_new(root, "filtered", json_boolean(s->filtered));
	json_object_set_new(root, "functions_total", json_integer((json_int_t)s->nfunctions_all));
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return ret;
}
