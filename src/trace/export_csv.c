/* CSV export: one row per call (columns documented in docs/formats.md). */
#include "trace/internal.h"
#include "core/log.h"
#include "core/progress.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static const char *counter_columns[SIBYL_CNT_MAX] = {
	"task_clock_ns", "page_faults", "context_switches", "cpu_migrations", "cycles",
	"instructions",
};

/* RFC 4180 quoting, only when the field needs it. */
static void put_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_header(FILE *out)
{
	fputs("pid,gen,tid,function_id,library,function,depth,start_ns,end_ns,duration_ns,"
	      "in_bytes,out_bytes,work", out);
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		fprintf(out, ",%s", counter_columns[i]);
	fputs(",size_method,inout_bytes,fast_in_bytes,fast_out_bytes,full_in_bytes,full_out_bytes,"
	      "full_inout_bytes", out);
	fputs(",call_id,parent_id,self_ns,abandoned\n", out);
}

/* Empty fields when unmeasured, as for counters. */
static void put_sizes(FILE *out, const struct sibyl_trace_call *c)
{
	const char *source = sibyl_trace_call_size_source(c);
	const struct { int method; bool inout; } cols[] = {
		{ SIBYL_WS_FAST, false }, { SIBYL_WS_FULL, true },
	};

	fprintf(out, ",%s,", source ? source : "");
	if (c->size_method == SIBYL_WS_FULL)
		fprintf(out, "%llu", (unsigned long long)c->inout_bytes);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		bool has = c->ws_mask & (1u << cols[i].method);
		const unsigned long long v[] = { c->ws[cols[i].method].in_bytes,
						 c->ws[cols[i].method].out_bytes,
						 c->ws[cols[i].method].inout_bytes };

		for (int k = 0; k < (cols[i].inout ? 3 : 2); k++)
			has ? fprintf(out, ",%llu", v[k]) : fputc(',', out);
	}
}

static void put_row(FILE *out, const struct sibyl_trace *t, const struct sibyl_trace_call *c)
{
	const struct sibyl_trace_thread *th = sibyl_trace_thread(t, c->thread);

	fprintf(out, "%u,%u,%u,%08x,", th->pid, th->gen, th->tid, c->function->id);
	put_field(out, c->function->library);
	fputc(',', out);
	put_field(out, c->function->name);
	fprintf(out, ",%u,%llu,%llu,%llu,%llu,%llu,%.17g", c->depth,
		(unsigned long long)c->start_ns, (unsigned long long)c->end_ns,
		(unsigned long long)c->duration_ns, (unsigned long long)c->in_bytes,
		(unsigned long long)c->out_bytes, c->work);
	/* An absent counter is an empty field, not 0: 0 is a real value. */
	for (int i = 0; i < SIBYL_CNT_MAX; i++) {
		fputc(',', out);
		if (c->counter_mask & (1u << i))
			fprintf(out, "%llu", (unsigned long long)c->counters[i]);
	}
	put_sizes(out, c);
	/* No enclosing call: an empty parent_id, as for a counter. */
	fprintf(out, ",%llu,", (unsigned long long)c->id);
	if (c->parent)
		fprintf(out, "%llu", (unsigned long long)c->parent);
	fprintf(out, ",%llu,%d\n", (unsigned long long)c->self_ns, c->abandoned);
}

int sibyl_export_csv(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen)
{
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;

	sibyl_trace_iter_parents(it);
	struct sibyl_progress line;
	uint64_t done = 0, total = sibyl_trace_call_count(t);

	/* Not over CSV going to the same terminal. */
	sibyl_progress_start(&line, stderr, "export", "calls");
	line.on &= !isatty(fileno(out));
	put_header(out);
	while (sibyl_trace_iter_next(it, &c)) {
		put_row(out, t, &c);
		if (++done % EXPORT_PROGRESS_EVERY == 0)
			sibyl_progress_update(&line, (double)done, (double)total, "CSV");
	}
	sibyl_progress_done(&line);
	sibyl_trace_iter_free(it);
	if (fflush(out) || ferror(out))
		return sibyl_seterr(err, errlen, "write failed: %s", strerror(errno ? errno : EIO));
	return 0;
}
