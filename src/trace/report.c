/*
 * `sibyl report` text: aligned tables with human units (like perf report
 * and uftrace report); the function table's columns are chosen by name
 * (trace/stat_keys.c).  The JSON form is in report_json.c.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.345 ms": three decimals in the largest unit that keeps >= 1. */
const char *trace_human_ns(char *buf, size_t len, double ns)
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

/* What the filters kept, and which counters the figures include. */
static void print_selection(FILE *out, const struct sibyl_trace *t,
			    const struct sibyl_trace_summary *s)
{
	if (s->filtered)
		fprintf(out, "# filter:  %llu of %llu calls selected\n",
			(unsigned long long)s->calls,
			(unsigned long long)sibyl_trace_call_count(t));
	if (s->nfunctions < s->nfunctions_all)
		fprintf(out, "# top:     %zu of %zu functions shown\n", s->nfunctions,
			s->nfunctions_all);
	if (!s->counter_records)
		return;
	fprintf(out, "# counters: mean per call over %llu calls; measured:",
		(unsigned long long)s->counter_records);
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		if (s->counters_seen & (1u << i))
			fprintf(out, " %s", sibyl_counter_name(i));
	if (s->counters_seen != (1u << SIBYL_CNT_MAX) - 1) {
		fputs("; not measured:", out);
		for (int i = 0; i < SIBYL_CNT_MAX; i++)
			if (!(s->counters_seen & (1u << i)))
				fprintf(out, " %s", sibyl_counter_name(i));
	}
	fputc('\n', out);
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
	fprintf(out, "# wall:    %s (from %s)\n", trace_human_ns(wall, sizeof(wall), (double)s->wall_ns),
		wall_src[m->wall_source]);
	fprintf(out, "# calls:   %llu, top-level busy %s = %.2f%% of wall\n",
		(unsigned long long)s->calls, trace_human_ns(busy, sizeof(busy), (double)s->toplevel_ns),
		s->toplevel_share_pct);
	if (s->abandoned)
		fprintf(out, "# note:    %llu calls left abnormally (longjmp, exception or exit "
			"inside them), timed until sibyl noticed\n", (unsigned long long)s->abandoned);
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
	print_selection(out, t, s);
}

static const int default_columns[] = {
	SIBYL_SORT_CALLS, SIBYL_SORT_TOTAL, SIBYL_SORT_SELF, SIBYL_SORT_MEAN,
	SIBYL_SORT_MEDIAN, SIBYL_SORT_P99, SIBYL_SORT_MAX, SIBYL_SORT_SHARE, SIBYL_SORT_IN,
	SIBYL_SORT_OUT, SIBYL_SORT_WORK,
};

int sibyl_report_columns_parse(const char *list, struct sibyl_report_columns *c, char *err,
			       size_t errlen)
{
	char name[64];

	c->n = 0;
	if (!strcmp(list, "all")) {
		for (int k = 0; k < SIBYL_SORT_KEYS; k++)
			if (trace_key(k)->kind != KEY_TEXT)
				c->key[c->n++] = k;
		return 0;
	}
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		int k;

		snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), p);
		k = n < 63 ? sibyl_sort_key_parse(name) : -1;
		if (k < 0 || trace_key(k)->kind == KEY_TEXT || c->n == SIBYL_SORT_KEYS)
			return sibyl_seterr(err, errlen, "'%s' is not a column (see --help: "
					    "calls, total, self, ..., or all)", name);
		c->key[c->n++] = k;
		p += n + (p[n] == ',');
	}
	return c->n ? 0 : sibyl_seterr(err, errlen, "no columns given");
}

/* The default columns, then the counters some call measured. */
static void default_layout(const struct sibyl_trace_summary *s, struct sibyl_report_columns *c)
{
	c->n = 0;
	for (size_t i = 0; i < sizeof(default_columns) / sizeof(default_columns[0]); i++)
		c->key[c->n++] = default_columns[i];
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		if (s->counters_seen & (1u << i))
			c->key[c->n++] = SIBYL_SORT_COUNTER + i;
}

static int key_width(const struct trace_key *k)
{
	static const int width[] = { [KEY_COUNT] = 10, [KEY_TIME] = 11, [KEY_PCT] = 7,
				     [KEY_BYTES] = 10, [KEY_NUMBER] = 10, [KEY_BYTE_RATE] = 12,
				     [KEY_RATE] = 10, [KEY_TEXT] = 0 };

	return width[k->kind];
}

static const char *cell(char *buf, size_t len, const struct sibyl_func_stats *f, int key)
{
	bool present;
	double v = trace_key_value(f, key, &present);

	if (!present)
		return "n/a";
	switch (trace_key(key)->kind) {
	case KEY_COUNT: snprintf(buf, len, "%.0f", v); return buf;
	case KEY_TIME: return trace_human_ns(buf, len, v);
	case KEY_PCT: snprintf(buf, len, "%.2f", v); return buf;
	case KEY_BYTES: return human_bytes(buf, len, (uint64_t)v);
	case KEY_BYTE_RATE:
		human_bytes(buf, len - 2, (uint64_t)(v + 0.5));
		strcat(buf, "/s");
		return buf;
	default: snprintf(buf, len, "%.4g", v); return buf;
	}
}

static void print_functions(FILE *out, const struct sibyl_trace_summary *s,
			    const struct sibyl_report_columns *cols)
{
	struct sibyl_report_columns def;
	int line = 0;
	char buf[48];

	if (!cols)
		default_layout(s, &def);
	cols = cols ? cols : &def;
	fputc('\n', out);
	for (size_t i = 0; i < cols->n; i++) {
		const struct trace_key *k = trace_key(cols->key[i]);

		line += fprintf(out, "%s%*s", i ? " " : "", key_width(k), k->header);
	}
	line += fprintf(out, "  %s\n", "Function [library]") - 1;
	for (int i = 0; i < line; i++)
		fputc('=', out);
	fputc('\n', out);
	for (size_t i = 0; i < s->nfunctions; i++) {
		const struct sibyl_func_stats *f = &s->functions[i];

		for (size_t j = 0; j < cols->n; j++)
			fprintf(out, "%s%*s", j ? " " : "", key_width(trace_key(cols->key[j])),
				cell(buf, sizeof(buf), f, cols->key[j]));
		fprintf(out, "  %s [%s]", f->function->name, f->function->library);
		if (f->abandoned)
			fprintf(out, " (%llu left abnormally)", (unsigned long long)f->abandoned);
		fputc('\n', out);
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
			trace_human_ns(busy, 32, (double)th->toplevel_ns), th->share_pct,
			(unsigned long long)th->thread->dropped,
			(unsigned long long)th->thread->torn,
			(unsigned long long)th->thread->skipped);
	}
}

static const char *base_name(const char *exe)
{
	const char *slash = strrchr(exe, '/');

	return slash ? slash + 1 : *exe ? exe : "?";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Shells and launchers on the way to the program: no wrapped call, and
 * none lost either (a process whose threads went unrecorded stays). */
static bool foldable(const struct sibyl_process_stats *p)
{
	return !p->calls && !p->process->lost_calls && !p->process->lost_threads;
}

/* "env, sh (2)": the folded images' executables, by base name, counted. */
static void fold_names(FILE *out, const struct sibyl_trace_summary *s, size_t folded)
{
	const char **names = sibyl_xcalloc(folded, sizeof(*names));
	size_t n = 0;

	for (size_t i = 0; i < s->nprocesses; i++)
		if (foldable(&s->processes[i]))
			names[n++] = base_name(s->processes[i].process->exe);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && !strcmp(names[i], names[i + run]); run++)
			;
		fprintf(out, "%s%s", i ? ", " : "", names[i]);
		if (run > 1)
			fprintf(out, " (%zu)", run);
	}
	free(names);
}

static void print_processes(FILE *out, const struct sibyl_trace_summary *s, bool all)
{
	size_t folded = 0;

	fprintf(out, "\n%8s %8s %4s %7s %10s %11s %11s %7s  %-18s %s\n", "PID", "PPID", "Gen",
		"Threads", "Calls", "Busy", "Lifetime", "Share%", "End", "Executable");
	fprintf(out, "%.*s\n", 110,
		"=========================================================================="
		"====================================");
	for (size_t i = 0; i < s->nprocesses; i++) {
		const struct sibyl_process_stats *p = &s->processes[i];
		char busy[32], life[32], end[48];

		if (!all && foldable(p)) {
			folded++;
			continue;
		}
		fprintf(out, "%8u %8u %4u %7zu %10llu %11s %11s %7.2f  %-18s %s\n", p->process->pid,
			p->process->ppid, p->process->gen, p->threads,
			(unsigned long long)p->calls, trace_human_ns(busy, 32, (double)p->toplevel_ns),
			trace_human_ns(life, 32, (double)p->lifetime_ns), p->share_pct,
			sibyl_trace_process_end(p->process, end, sizeof(end)), p->process->exe);
	}
	if (!folded)
		return;
	fprintf(out, "%8s %zu process image%s without wrapped calls (--all-processes lists them): ",
		"+", folded, folded > 1 ? "s" : "");
	fold_names(out, s, folded);
	fputc('\n', out);
}

void sibyl_report_print_text(FILE *out, const struct sibyl_trace *t,
			     const struct sibyl_trace_summary *s, unsigned sections,
			     const struct sibyl_report_columns *columns)
{
	print_header(out, t, s);
	if (sections & SIBYL_REPORT_FUNCTIONS)
		print_functions(out, s, columns);
	if (sections & SIBYL_REPORT_THREADS)
		print_threads(out, s);
	if (sections & SIBYL_REPORT_PROCESSES)
		print_processes(out, s, sections & SIBYL_REPORT_ALL_PROCESSES);
}
