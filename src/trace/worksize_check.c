/*
 * report --worksize-check: the automatic work sizes (worksize records)
 * against the manual ones (the call record's sizes, when a manual
 * expression gave them), per function and method, as the paper's
 * section V.B evaluates them: each call contributes two points, its
 * input and its output, and the error is their root mean square.
 */
#include "trace/internal.h"
#include "core/alloc.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[SIBYL_WS_METHODS] = {
	[SIBYL_WS_FAST] = "fast",
	[SIBYL_WS_FULL] = "full",
};

const char *sibyl_ws_method_name(int method)
{
	return method > 0 && method < SIBYL_WS_METHODS ? method_names[method] : "?";
}

const char *sibyl_trace_call_size_source(const struct sibyl_trace_call *c)
{
	if (c->size_method)
		return sibyl_ws_method_name(c->size_method);
	return c->ws_manual ? "manual" : NULL;
}

static struct sibyl_ws_check_entry *entry_of(struct sibyl_ws_check *c,
					     const struct sibyl_trace_function *f, int method)
{
	for (size_t i = c->nentries; i-- > 0;)
		if (c->entries[i].function == f && c->entries[i].method == method)
			return &c->entries[i];
	c->entries = sibyl_xreallocarray(c->entries, c->nentries + 1, sizeof(*c->entries));
	c->entries[c->nentries] = (struct sibyl_ws_check_entry){ .function = f, .method = method };
	return &c->entries[c->nentries++];
}

static void add_point(struct sibyl_ws_check *c, const struct sibyl_trace_call *call, int m)
{
	if (c->npoints == c->points_cap) {
		c->points_cap = c->points_cap ? c->points_cap * 2 : 256;
		c->points = sibyl_xreallocarray(c->points, c->points_cap, sizeof(*c->points));
	}
	c->points[c->npoints++] = (struct sibyl_ws_check_point){
		.method = m,
		.manual_in = call->in_bytes, .manual_out = call->out_bytes,
		.auto_in = call->ws[m].in_bytes, .auto_out = call->ws[m].out_bytes,
	};
}

static int by_name_method(const void *a, const void *b)
{
	const struct sibyl_ws_check_entry *x = a, *y = b;
	int c = strcmp(x->function->name, y->function->name);

	if (!c)
		c = strcmp(x->function->library, y->function->library);
	return c ? c : x->method - y->method;
}

struct sibyl_ws_check *sibyl_worksize_check(const struct sibyl_trace *t)
{
	struct sibyl_ws_check *c = sibyl_xcalloc(1, sizeof(*c));
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call call;

	while (sibyl_trace_iter_next(it, &call)) {
		for (int m = 1; m < SIBYL_WS_METHODS; m++) {
			if (!(call.ws_mask & (1u << m)))
				continue;
			struct sibyl_ws_check_entry *e = entry_of(c, call.function, m);
			double din = (double)call.ws[m].in_bytes - (double)call.in_bytes;
			double dout = (double)call.ws[m].out_bytes - (double)call.out_bytes;

			e->automatic++;
			if (!call.ws_manual)
				continue;
			e->calls++;
			e->sum_sq += din * din + dout * dout;
			add_point(c, &call, m);
		}
	}
	sibyl_trace_iter_free(it);
	for (size_t i = 0; i < c->nentries; i++) {
		struct sibyl_ws_check_entry *e = &c->entries[i];

		e->rmse_bytes = e->calls ? sqrt(e->sum_sq / (2.0 * (double)e->calls)) : NAN;
	}
	qsort(c->entries, c->nentries, sizeof(*c->entries), by_name_method);
	return c;
}

void sibyl_worksize_check_free(struct sibyl_ws_check *c)
{
	if (!c)
		return;
	free(c->entries);
	free(c->points);
	free(c);
}

void sibyl_worksize_check_print_text(FILE *out, const struct sibyl_ws_check *c)
{
	if (!c->nentries) {
		fprintf(out, "no automatic work sizes in this trace (wrap with --gen worksize.fast)\n");
		return;
	}
	fprintf(out, "%12s %12s %8s %14s  %s\n", "Automatic", "Compared", "Method", "RMSE (bytes)",
		"Function [library]");
	for (size_t i = 0; i < c->nentries; i++) {
		const struct sibyl_ws_check_entry *e = &c->entries[i];
		char rmse[32] = "-";

		if (e->calls)
			snprintf(rmse, sizeof(rmse), "%.1f", e->rmse_bytes);
		fprintf(out, "%12llu %12llu %8s %14s  %s [%s]\n", (unsigned long long)e->automatic,
			(unsigned long long)e->calls, sibyl_ws_method_name(e->method), rmse,
			e->function->name, e->function->library);
	}
	fprintf(out, "# compared: calls with a manual expression too (worksize.manual); RMSE over "
		"their input and output sizes\n");
}

int sibyl_worksize_check_print_json(FILE *out, const struct sibyl_ws_check *c)
{
	json_t *list = json_array(), *root = json_object();

	for (size_t i = 0; i < c->nentries; i++) {
		const struct sibyl_ws_check_entry *e = &c->entries[i];

		json_array_append_new(list, json_pack("{s:o, s:I, s:s, s:o}",
			"function", trace_jstr(e->function->name), "calls", (json_int_t)e->calls,
			"method", sibyl_ws_method_name(e->method),
			"rmse_bytes", e->calls ? json_real(e->rmse_bytes) : json_null()));
	}
	json_object_set_new(root, "worksize_check", list);
	int r = json_dumpf(root, out, JSON_INDENT(2)) || fputc('\n', out) == EOF ? -1 : 0;

	json_decref(root);
	return r;
}
