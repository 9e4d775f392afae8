/* The work metrics a program called a function at (call_mix.h). */
#include "planner/call_mix.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "sibyl/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST_BYTES ((size_t)64 << 20)

static int by_metric(const void *a, const void *b)
{
	const struct sibyl_mix_entry *x = a, *y = b;

	return (x->metric > y->metric) - (x->metric < y->metric);
}

/* Sort and merge entries of the same metric; the totals. */
static void merge(struct sibyl_call_mix *mix)
{
	size_t k = 0;

	qsort(mix->v, mix->n, sizeof(*mix->v), by_metric);
	mix->calls = 0;
	mix->seconds = 0;
	for (size_t i = 0; i < mix->n; i++) {
		mix->calls += mix->v[i].calls;
		mix->seconds += mix->v[i].seconds;
		if (k && mix->v[k - 1].metric == mix->v[i].metric) {
			mix->v[k - 1].calls += mix->v[i].calls;
			mix->v[k - 1].seconds += mix->v[i].seconds;
		} else {
			mix->v[k++] = mix->v[i];
		}
	}
	mix->n = k;
}

static void push(struct sibyl_call_mix *mix, size_t *cap, uint64_t metric, double seconds)
{
	if (mix->n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		mix->v = sibyl_xreallocarray(mix->v, *cap, sizeof(*mix->v));
	}
	mix->v[mix->n++] = (struct sibyl_mix_entry){ metric, 1, seconds };
}

/* A work as the adapter takes it: a non-negative whole number. */
static int as_metric(double w, uint64_t *m)
{
	if (!(w >= 0 && w < 1.8e19) || w != floor(w))
		return -1;
	*m = (uint64_t)w;
	return 0;
}

/* The function's calls, sorted into the mix. */
static int collect(const struct sibyl_trace *t, const char *function, const char *metric,
		   struct sibyl_call_mix *mix, char *err, size_t errlen)
{
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;
	enum sibyl_work_source src = SIBYL_WORK_DECLARED;
	const struct sibyl_trace_function *checked = NULL;
	size_t cap = 0;
	int rc = 0;

	while (rc == 0 && sibyl_trace_iter_next(it, &c) == 1) {
		uint64_t m = 0;

		if (strcmp(c.function->name, function))
			continue;
		if (c.function != checked) {
			rc = sibyl_work_source_of(c.function, metric, "the adapter", &src, err,
						  errlen);
			checked = c.function;
		}
		if (rc == 0 && as_metric(sibyl_call_work(&c, src), &m))
			rc = sibyl_seterr(err, errlen, "%s: a call's work %g is not a whole work "
					  "metric", function, sibyl_call_work(&c, src));
		if (rc == 0)
			push(mix, &cap, m, c.duration_ns * 1e-9);
	}
	sibyl_trace_iter_free(it);
	return rc;
}

int sibyl_call_mix_trace(const char *dir, const char *function, const char *metric,
			 struct sibyl_call_mix *mix, char *err, size_t errlen)
{
	char why[1024];
	struct sibyl_trace *t = sibyl_trace_open(dir, why, sizeof(why));

	memset(mix, 0, sizeof(*mix));
	mix->kind = "trace";
	if (!t)
		return sibyl_seterr(err, errlen, "%s", why);
	int rc = collect(t, function, metric, mix, err, errlen);

	sibyl_trace_close(t);
	if (rc == 0 && mix->n == 0)
		rc = sibyl_seterr(err, errlen, "%s: no call of %s in the trace (sibyl report %s "
				  "lists what was called)", dir, function, dir);
	if (rc == 0) {
		mix->nseq = mix->n;
		mix->seq = sibyl_xmalloc(mix->n * sizeof(*mix->seq));
		memcpy(mix->seq, mix->v, mix->n * sizeof(*mix->seq));
		merge(mix);
	}
	return rc;
}

/* One line: METRIC [WEIGHT], or blank, or a comment. */
static int parse_line(char *line, struct sibyl_call_mix *mix, size_t *cap, const char **why)
{
	char *end, *hash = strchr(line, '#');
	double weight = 1;
	uint64_t m;

	if (hash)
		*hash = '\0';
	line += strspn(line, " \t\r");
	if (!*line)
		return 0;
	errno = 0;
	if (!(*line >= '0' && *line <= '9') || (m = strtoull(line, &end, 10), errno))
		return *why = "not a work metric (a non-negative integer)", -1;
	if (*end && !strchr(" \t\r", *end))
		return *why = "not a work metric (a non-negative integer)", -1;
	end += strspn(end, " \t\r");
	if (*end) {
		weight = strtod(end, &end);
		end += strspn(end, " \t\r");
		if (*end || !(weight > 0 && isfinite(weight)))
			return *why = "the weight is not a positive number", -1;
	}
	push(mix, cap, m, weight);
	return 0;
}

int sibyl_call_mix_list(const char *path, struct sibyl_call_mix *mix, char *err,
			size_t errlen)
{
	char why[256];
	size_t len, cap = 0, lineno = 0;
	char *text = sibyl_read_file(path, MAX_LIST_BYTES, &len, why, sizeof(why)), *save = NULL;

	memset(mix, 0, sizeof(*mix));
	mix->kind = "list";
	if (!text)
		return sibyl_seterr(err, errlen, "%s: %s", path, why);
	int rc = 0;

	for (char *line = text; rc == 0 && line; line = save) {
		const char *bad = NULL;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		if (parse_line(line, mix, &cap, &bad))
			rc = sibyl_seterr(err, errlen, "%s:%zu: %s", path, lineno, bad);
	}
	free(text);
	if (rc == 0 && mix->n == 0)
		rc = sibyl_seterr(err, errlen, "%s: no work metric in the list", path);
	if (rc == 0)
		merge(mix);
	return rc;
}

void sibyl_call_mix_free(struct sibyl_call_mix *mix)
{
	free(mix->v);
	free(mix->seq);
	memset(mix, 0, sizeof(*mix));
}

size_t sibyl_call_mix_clip(struct sibyl_call_mix *mix, uint64_t lo, uint64_t hi)
{
	size_t k = 0, before = mix->calls;

	for (size_t i = 0; i < mix->n; i++)
		if (mix->v[i].metric >= lo && mix->v[i].metric <= hi)
			mix->v[k++] = mix->v[i];
	mix->n = k;
	merge(mix);
	k = 0;
	for (size_t i = 0; i < mix->nseq; i++)
		if (mix->seq[i].metric >= lo && mix->seq[i].metric <= hi)
			mix->seq[k++] = mix->seq[i];
	mix->nseq = k;
	mix->left_out += before - mix->calls;
	return before - mix->calls;
}
