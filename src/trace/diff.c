/*
 * `sibyl report --diff A B`: two summaries side by side, function by
 * function (matched by library and name, the ids differ between wrapper
 * builds), with the ratio of B's time to A's; largest change first.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct diff_row {
	const struct sibyl_trace_function *fn;	/* from A, else from B */
	const struct sibyl_func_stats *a, *b;	/* NULL: not called there */
};

static uint64_t total(const struct sibyl_func_stats *f)
{
	return f ? f->total_ns : 0;
}

static uint64_t calls(const struct sibyl_func_stats *f)
{
	return f ? f->calls : 0;
}

/* B's time over A's: NAN when A spent none. */
static double ratio(const struct diff_row *r)
{
	return total(r->a) ? (double)total(r->b) / (double)total(r->a) : NAN;
}

static int cmp_row(const void *x, const void *y)
{
	const struct diff_row *p = x, *q = y;
	double dp = fabs((double)total(p->b) - (double)total(p->a));
	double dq = fabs((double)total(q->b) - (double)total(q->a));
	int r = dp < dq ? 1 : dp > dq ? -1 : 0;

	if (!r)
		r = strcmp(p->fn->name, q->fn->name);
	return r ? r : strcmp(p->fn->library, q->fn->library);
}

static bool same(const struct sibyl_trace_function *x, const struct sibyl_trace_function *y)
{
	return !strcmp(x->name, y->name) && !strcmp(x->library, y->library);
}

/* Every function called in A or B, once, largest change first; the
 * first `top` of them (0: all). */
static struct diff_row *rows(const struct sibyl_trace_summary *a,
			     const struct sibyl_trace_summary *b, size_t top, size_t *n)
{
	struct diff_row *v = sibyl_xcalloc(a->nfunctions + b->nfunctions + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < a->nfunctions; i++)
		v[(*n)++] = (struct diff_row){ a->functions[i].function, &a->functions[i], NULL };
	for (size_t j = 0; j < b->nfunctions; j++) {
		size_t i = 0;

		while (i < *n && !same(v[i].fn, b->functions[j].function))
			i++;
		if (i == *n)
			v[(*n)++] = (struct diff_row){ b->functions[j].function, NULL, NULL };
		v[i].b = &b->functions[j];
	}
	qsort(v, *n, sizeof(*v), cmp_row);
	if (top && top < *n)
		*n = top;
	return v;
}

static const char *ratio_text(char *buf, size_t len, const struct diff_row *r)
{
	double q = ratio(r);

	if (isnan(q))
		return r->b ? "new" : "-";
	if (!r->b)
		return "gone";
	snprintf(buf, len, "%.3fx", q);
	return buf;
}

void sibyl_report_diff_print_text(FILE *out, const struct sibyl_trace_summary *a,
				  const struct sibyl_trace_summary *b, const char *name_a,
				  const char *name_b, size_t top)
{
	size_t n;
	struct diff_row *v = rows(a, b, top, &n);
	char t1[32], t2[32], q[32];

	fprintf(out, "# A: %s: %llu calls, wall %s\n", name_a, (unsigned long long)a->calls,
		trace_human_ns(t1, sizeof(t1), (double)a->wall_ns));
	fprintf(out, "# B: %s: %llu calls, wall %s\n", name_b, (unsigned long long)b->calls,
		trace_human_ns(t2, sizeof(t2), (double)b->wall_ns));
	fprintf(out, "\n%10s %10s %11s %11s %9s  %s\n", "Calls A", "Calls B", "Total A",
		"Total B", "B/A", "Function [library]");
	fprintf(out, "%.*s\n", 76, "=================================================="
				   "==========================================");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%10llu %10llu %11s %11s %9s  %s [%s]\n",
			(unsigned long long)calls(v[i].a), (unsigned long long)calls(v[i].b),
			trace_human_ns(t1, sizeof(t1), (double)total(v[i].a)),
			trace_human_ns(t2, sizeof(t2), (double)total(v[i].b)),
			ratio_text(q, sizeof(q), &v[i]), v[i].fn->name, v[i].fn->library);
	free(v);
}

int sibyl_report_diff_print_json(FILE *out, const struct sibyl_trace_summary *a,
				 const struct sibyl_trace_summary *b, size_t top)
{
	size_t n;
	struct diff_row *v = rows(a, b, top, &n);
	json_t *fns = json_array(), *root;
	int r;

	for (size_t i = 0; i < n; i++) {
		double q = ratio(&v[i]);

		json_array_append_new(fns, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o}",
			"name", trace_jstr(v[i].fn->name), "library", trace_jstr(v[i].fn->library),
			"calls_a", (json_int_t)calls(v[i].a), "calls_b", (json_int_t)calls(v[i].b),
			"total_ns_a", (json_int_t)total(v[i].a),
			"total_ns_b", (json_int_t)total(v[i].b),
			"ratio", sibyl_json_real_or_null(q)));
	}
	free(v);
	root = json_pack("{s:{s:I, s:I}, s:{s:I, s:I}, s:o}",
			 "a", "calls", (json_int_t)a->calls, "wall_ns", (json_int_t)a->wall_ns,
			 "b", "calls", (json_int_t)b->calls, "wall_ns", (json_int_t)b->wall_ns,
			 "functions", fns);
	if (!root)
		return -1;
	r = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return r;
}
