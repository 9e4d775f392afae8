/* Aggregation for `sibyl report` and its JSON form. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sibyl/trace.h"
#include "trace_writer.h"

/*
 * rate 1 tick/ns, wall 10000 ns.  Thread 11: outer A [0,4000) containing
 * nested B [1000,2000) and B [2500,3000) (written in exit order, nested
 * first, as the runtime does); thread 12: A [0,1000) and B [5000,5100).
 */
static struct sibyl_trace *open_fixture(struct tw *w)
{
	union tw_record t11[] = {
		tw_call(0xb, 1, 1000, 2000, 10, 1, 2),
		tw_call(0xb, 1, 2500, 3000, 10, 1, 2),
		tw_call(0xa, 0, 0, 4000, 100, 50, 7),
	};
	union tw_record t12[] = {
		tw_call(0xa, 0, 0, 1000, 1, 2, 3),
		tw_call(0xb, 0, 5000, 5100, 0, 0, 0),
	};
	char err[512] = "";

	tw_init(w);
	tw_meta(w, 0, 0, 1.0, 10000);
	tw_text(w, "functions.tsv", "a\tliba.so\tA\nb\tliba.so\tB\n");
	tw_proc(w, 11, 1, 0, 1, 1, 9000, 9000, "/bin/x");
	tw_events(w, 11, 0, 11, t11, 3);
	tw_events(w, 11, 0, 12, t12, 2);
	struct sibyl_trace *t = sibyl_trace_open(w->dir, err, sizeof(err));

	if (!t)
		fail_msg("open: %s", err);
	return t;
}

static const struct sibyl_func_stats *find(const struct sibyl_trace_summary *s,
					   const char *name)
{
	for (size_t i = 0; i < s->nfunctions; i++)
		if (!strcmp(s->functions[i].function->name, name))
			return &s->functions[i];
	fail_msg("no function %s", name);
	return NULL;
}

static void aggregates_functions(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_TOTAL);
	const struct sibyl_func_stats *a = find(s, "A"), *b = find(s, "B");

	assert_int_equal(s->nfunctions, 2);
	assert_ptr_equal(&s->functions[0], a);	/* largest total first */
	assert_int_equal(a->calls, 2);
	assert_int_equal(a->total_ns, 5000);
	assert_int_equal(a->min_ns, 1000);
	assert_int_equal(a->max_ns, 4000);
	assert_true(a->mean_ns == 2500.0);
	assert_true(fabs(a->share_pct - 50.0) < 1e-9);
	assert_int_equal(a->in_bytes, 101);
	assert_int_equal(a->out_bytes, 52);
	assert_true(a->work == 10.0);
	assert_int_equal(b->calls, 3);
	assert_int_equal(b->total_ns, 1600);
	assert_int_equal(b->min_ns, 100);
	assert_int_equal(b->max_ns, 1000);
	assert_true(fabs(b->share_pct - 16.0) < 1e-9);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void nested_calls_not_double_counted(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_NAME);

	/* Top level: A 4000 + A 1000 + B 100; the nested B's are inside A. */
	assert_int_equal(s->calls, 5);
	assert_int_equal(s->toplevel_ns, 5100);
	assert_true(fabs(s->toplevel_share_pct - 51.0) < 1e-9);
	assert_int_equal(s->nthreads, 2);
	assert_int_equal(s->threads[0].calls, 3);
	assert_int_equal(s->threads[0].toplevel_ns, 4000);
	assert_int_equal(s->threads[1].toplevel_ns, 1100);
	assert_int_equal(s->nprocesses, 1);
	assert_int_equal(s->processes[0].threads, 2);
	assert_int_equal(s->processes[0].toplevel_ns, 5100);
	assert_int_equal(s->processes[0].lifetime_ns, 8999);
	assert_string_equal(s->functions[0].function->name, "A");	/* by name */
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void sorts_by_calls(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_CALLS);

	assert_string_equal(s->functions[0].function->name, "B");
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void json_has_the_documented_fields(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_TOTAL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t jerr;

	assert_int_equal(sibyl_report_print_json(f, t, s), 0);
	fclose(f);
	json_t *root = json_loads(buf, 0, &jerr);

	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "wall_ns")), 10000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "exit"),
							    "status")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(root, "command"),
							     0)), "./app");
	json_t *fa = json_array_get(json_object_get(root, "functions"), 0);
	static const char *keys[] = { "name", "library", "calls", "total_ns", "mean_ns",
				      "min_ns", "max_ns", "share_pct", "in_bytes",
				      "out_bytes", "work" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_get(fa, keys[i]))
			fail_msg("functions[0] lacks '%s'", keys[i]);
	assert_string_equal(json_string_value(json_object_get(fa, "name")), "A");
	assert_int_equal(json_integer_value(json_object_get(fa, "total_ns")), 5000);
	assert_true(fabs(json_number_value(json_object_get(fa, "share_pct")) - 50.0) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(root, "threads")), 2);
	assert_int_equal(json_array_size(json_object_get(root, "processes")), 1);
	json_decref(root);
	free(buf);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void text_report_lists_everything(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_TOTAL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sibyl_report_print_text(f, t, s, ~0u, NULL);
	fclose(f);
	assert_non_null(strstr(buf, "A [liba.so]"));
	assert_non_null(strstr(buf, "5.000 us"));
	assert_non_null(strstr(buf, "/bin/x"));
	assert_non_null(strstr(buf, "./app --size 8"));
	free(buf);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aggregates_functions),
		cmocka_unit_test(nested_calls_not_double_counted),
		cmocka_unit_test(sorts_by_calls),
		cmocka_unit_test(json_has_the_documented_fields),
		cmocka_unit_test(text_report_lists_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
