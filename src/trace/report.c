/*
 * `sibyl report` output: aligned tables with human units (like perf
 * report / uftrace report) and one JSON object whose field names other
 * tools rely on (docs/report.md) -- rename nothing there.
 */
#include "trace/internal.h"
#include "core/alloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.345 ms": three decimals in the largest unit that keeps >= 1. */
static const char *human_ns(char *buf, size_t len, double ns)
{
	static const char *unit[] = { "ns", "us", "ms", "s" };
	int u = 0;

	if (ns < 1000) {
		snprintf(buf, len, "%.0f ns", ns);
		return buf;
	}
	while (u < 3 && ns >= 1000) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3f %s", ns, unit[u]);
	return buf;
}

static const char *human_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	if (b < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)b);
		return buf;
	}
	while (u < 4 && v >= 1024) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/* Why a trace lacks records it should hold (docs/report.md). */
static void print_incomplete(FILE *out, const struct sibyl_trace_meta *m,
			     const struct sibyl_trace_summary *s)
{
	if (m->present && !m->finished)
		fprintf(out, "# warning: incomplete trace: sibyl trace did not finish (killed?); "
			"what the program did after that is missing\n");
	if (s->lost_threads)
		fprintf(out, "# warning: incomplete trace: %llu threads not recorded (no buffer "
			"could be created for them), %llu calls of theirs lost\n",
			(unsigned long long)s->lost_threads, (unsigned long long)s->lost_calls);
	else if (m->finished && !m->complete)
		fprintf(out, "# warning: incomplete trace: sibyl trace could not save every "
			"record (it said why when it ran)\n");
}

static void print_header(FILE *out, const struct sibyl_trace *t,
			 const struct sibyl_trace_summary *s)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);
	static const char *wall_src[] = { "meta.json", "process lifetimes", "call span" };
	char wall[32], busy[32];

	fprintf(out, "# command: %s\n", m->present && m->argc ? m->command : "(unknown)");
	if (m->exit_kind == SIBYL_EXIT_STATUS)
		fprintf(out, "# exit:    status %d\n", m->exit_code);
	else if (m->exit_kind == SIBYL_EXIT_SIGNAL)
		fprintf(out, "# exit:    signal %d\n", m->exit_code);
	fprintf(out, "# wall:    %s (from %s)\n", human_ns(wall, sizeof(wall), (double)s->wall_ns),
		wall_src[m->wall_source]);
	fprintf(out, "# calls:   %llu, top-level busy %s = %.2f%% of wall\n",
		(unsigned long long)s->calls, human_ns(busy, sizeof(busy), (double)s->toplevel_ns),
		s->toplevel_share_pct);
	uint64_t dropped = 0, torn = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		dropped += s->threads[i].thread->dropped;
		torn += s->threads[i].thread->torn;
	}
	/* Lost records make every figure below an underestimate: say so. */
	if (dropped || torn)
		fprintf(out, "# warning: %llu records dropped by the runtime, %llu torn by a crash\n",
			(unsigned long long)dropped, (unsigned long long)torn);
	print_incomplete(out, m, s);
}

static void print_functions(FILE *out, const struct sibyl_trace_summary *s)
{
	fprintf(out, "\n%10s %11s %11s %11s %11s %7s %10s %10s %10s  %s\n", "Calls", "Total",
		"Mean", "Min", "Max", "Share%", "In", "Out", "Work", "Function [library]");
	fprintf(out, "%.*s\n", 120,
		"==========================================================================="
		"===============================================================");
	for (size_t i = 0; i < s->nfunctions; i++) {
		const struct sibyl_func_stats *f = &s->functions[i];
		char tot[32], mean[32], min[32], max[32], in[32], outb[32];

		fprintf(out, "%10llu %11s %11s %11s %11s %7.2f %10s %10s %10.4g  %s [%s]\n",
			(unsigned long long)f->calls, human_ns(tot, 32, (double)f->total_ns),
			human_ns(mean, 32, f->mean_ns), human_ns(min, 32, (double)f->min_ns),
			human_ns(max, 32, (double)f->max_ns), f->share_pct,
			human_bytes(in, 32, f->in_bytes), human_bytes(outb, 32, f->out_bytes),
			f->work, f->function->name, f->function->library);
	}
}

static void print_threads(FILE *out, const struct sibyl_trace_summary *s)
{
	fprintf(out, "\n%8s %4s %8s %10s %11s %7s %9s %6s %8s\n", "PID", "Gen", "TID", "Calls",
		"Busy", "Share%", "Dropped", "Torn", "Skipped");
	fprintf(out, "%.*s\n", 78,
		"==============================================================================");
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct sibyl_thread_stats *th = &s->threads[i];
		char busy[32];

		fprintf(out, "%8u %4u %8u %10llu %11s %7.2f %9llu %6llu %8llu\n", th->thread->pid,
			th->thread->gen, th->thread->tid, (unsigned long long)th->calls,
			human_ns(busy, 32, (double)th->toplevel_ns), th->share_pct,
			(unsigned long long)th->thread->dropped,
			(unsigned long long)th->thread->torn,
			(unsigned long long)th->thread->skipped);
	}
}

static void print_processes(FILE *out, const struct sibyl_trace_summary *s)
{
	fprintf(out, "\n%8s %8s %4s %7s %10s %11s %11s %7s  %s\n", "PID", "PPID", "Gen",
		"Threads", "Calls", "Busy", "Lifetime", "Share%", "Executable");
	fprintf(out, "%.*s\n", 90,
		"=========================================================================="
		"================");
	for (size_t i = 0; i < s->nprocesses; i++) {
		const struct sibyl_process_stats *p = &s->processes[i];
		char busy[32], life[32];

		fprintf(out, "%8u %8u %4u %7zu %10llu %11s %11s %7.2f  %s%s\n", p->process->pid,
			p->process->ppid, p->process->gen, p->threads,
			(unsigned long long)p->calls, human_ns(busy, 32, (double)p->toplevel_ns),
			human_ns(life, 32, (double)p->lifetime_ns), p->share_pct, p->process->exe,
			p->process->exited ? "" : " (did not exit)");
	}
}

void sibyl_report_print_text(FILE *out, const struct sibyl_trace *t,
			     const struct sibyl_trace_summary *s, unsigned sections)
{
	print_header(out, t, s);
	if (sections & SIBYL_REPORT_FUNCTIONS)
		print_functions(out, s);
	if (sections & SIBYL_REPORT_THREADS)
		print_threads(out, s);
	if (sections & SIBYL_REPORT_PROCESSES)
		print_processes(out, s);
}

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

static json_t *json_processes(const struct sibyl_trace_summary *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nprocesses; i++) {
		const struct sibyl_process_stats *p = &s->processes[i];

		json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:o, s:I, s:o, s:o, s:o, "
						   "s:f, s:o, s:o, s:b, s:o, s:o}",
			"pid", (json_int_t)p->process->pid, "ppid", (json_int_t)p->process->ppid,
			"gen", (json_int_t)p->process->gen, "exe", trace_jstr(p->process->exe),
			"threads", (json_int_t)p->threads, "calls", u64(p->calls),
			"toplevel_ns", u64(p->toplevel_ns), "lifetime_ns", u64(p->lifetime_ns),
			"share_pct", p->share_pct, "start_ns", u64(p->process->start_ns),
			"end_ns", u64(p->process->end_ns), "exited", p->process->exited,
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
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return ret;
}
