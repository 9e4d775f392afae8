/*
 * Chrome trace export: the Trace Event Format's JSON object form, which
 * Perfetto UI and chrome://tracing open.  One complete event ("ph":"X")
 * per call on its process and thread, named after the function, its
 * library as category; metadata events name processes and threads.
 * Written as a stream (a trace may hold millions of calls); names are
 * escaped once per function through jansson.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/progress.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A JSON string literal, quotes included (malloc'd). */
static char *quoted(const char *s)
{
	json_t *v = trace_jstr(s);
	char *q = json_dumps(v, JSON_ENCODE_ANY);

	json_decref(v);
	return q ? q : sibyl_xstrdup("\"?\"");
}

/* Microseconds with nanosecond digits: exact, whatever the magnitude. */
static void put_us(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static void put_names(FILE *out, const struct sibyl_trace *t)
{
	for (size_t i = 0; i < sibyl_trace_process_count(t); i++) {
		const struct sibyl_trace_process *p = sibyl_trace_process(t, i);
		char *label = sibyl_xasprintf("%s (pid %u%s)", *p->exe ? base_name(p->exe) : "?",
					      p->pid, p->gen ? ", after exec" : "");
		char *q = quoted(label);

		fprintf(out, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"process_name\","
			"\"args\":{\"name\":%s}},\n", p->pid, p->pid, q);
		free(q);
		free(label);
	}
	for (size_t i = 0; i < sibyl_trace_thread_count(t); i++) {
		const struct sibyl_trace_thread *th = sibyl_trace_thread(t, i);

		fprintf(out, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\","
			"\"args\":{\"name\":\"thread %u\"}},\n", th->pid, th->tid, th->tid);
	}
}

static void put_call(FILE *out, const struct sibyl_trace *t, const struct sibyl_trace_call *c,
		     char *const *names, char *const *libs)
{
	const struct sibyl_trace_thread *th = sibyl_trace_thread(t, c->thread);
	size_t f = (size_t)(c->function - sibyl_trace_function(t, 0));

	fprintf(out, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"name\":%s,\"cat\":%s", th->pid,
		th->tid, names[f], libs[f]);
	put_us(out, "ts", c->start_ns);
	put_us(out, "dur", c->duration_ns);
	fprintf(out, ",\"args\":{\"call_id\":%llu,\"depth\":%u,\"self_ns\":%llu,"
		"\"in_bytes\":%llu,\"out_bytes\":%llu,\"work\":",
		(unsigned long long)c->id, c->depth, (unsigned long long)c->self_ns,
		(unsigned long long)c->in_bytes, (unsigned long long)c->out_bytes);
	if (isfinite(c->work))
		fprintf(out, "%.17g}}", c->work);
	else
		fputs("null}}", out);
}

static void put_calls(FILE *out, const struct sibyl_trace *t, char *const *names,
		      char *const *libs)
{
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;
	struct sibyl_progress line;
	uint64_t done = 0, total = sibyl_trace_call_count(t);

	sibyl_progress_start(&line, stderr, "export", "calls");
	line.on &= !isatty(fileno(out));
	while (sibyl_trace_iter_next(it, &c)) {
		fputs(done ? ",\n" : "", out);
		put_call(out, t, &c, names, libs);
		if (++done % EXPORT_PROGRESS_EVERY == 0)
			sibyl_progress_update(&line, (double)done, (double)total, "Chrome JSON");
	}
	sibyl_progress_done(&line);
	sibyl_trace_iter_free(it);
}

int sibyl_export_chrome(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen)
{
	size_t nf = sibyl_trace_function_count(t);
	char **names = sibyl_xcalloc(nf ? nf : 1, sizeof(*names));
	char **libs = sibyl_xcalloc(nf ? nf : 1, sizeof(*libs));

	for (size_t i = 0; i < nf; i++) {
		names[i] = quoted(sibyl_trace_function(t, i)->name);
		libs[i] = quoted(sibyl_trace_function(t, i)->library);
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"sibyl export\"},"
	      "\"traceEvents\":[\n", out);
	put_names(out, t);
	put_calls(out, t, names, libs);
	/* The metadata lines end with a comma: close with one more event. */
	fputs(sibyl_trace_call_count(t) ? "\n]}\n" : "{\"ph\":\"M\",\"pid\":0,\"tid\":0,"
	      "\"name\":\"process_name\",\"args\":{\"name\":\"(no calls)\"}}\n]}\n", out);
	for (size_t i = 0; i < nf; i++) {
		free(names[i]);
		free(libs[i]);
	}
	free(names);
	free(libs);
	if (fflush(out) || ferror(out))
		return sibyl_seterr(err, errlen, "write failed: %s", strerror(errno ? errno : EIO));
	return 0;
}
