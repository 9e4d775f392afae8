/* The explorable report: call tree (parents, self time), filters,
 * spread of call times, sort keys and --diff. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sibyl/trace.h"
#include "trace_writer.h"

/*
 * rate 1 tick/ns, start 1000000 ns.  Thread 11: outer A [0,4000)
 * containing B [1000,2000) and B [2500,3000), written in exit order.
 * Thread 12: A [0,1000), B [5000,5100).  Thread 13, made as a longjmp
 * or a dropped record leaves it: C at depth 2 whose depth-1 parent is
 * missing, inside A [0,1000); then two C at depth 1 with no enclosing
 * call (the depth stayed raised), and A [5000,6000) enclosing neither.
 */
#define T0 1000000
static struct sibyl_trace *open_fixture(struct tw *w)
{
	union tw_record t11[] = {
		tw_call(0xb, 1, T0 + 1000, T0 + 2000, 10, 1, 2),
		tw_call(0xb, 1, T0 + 2500, T0 + 3000, 10, 1, 2),
		tw_call(0xa, 0, T0, T0 + 4000, 100, 50, 7),
	};
	union tw_record t12[] = {
		tw_call(0xa, 0, T0, T0 + 1000, 1, 2, 3),
		tw_call(0xb, 0, T0 + 5000, T0 + 5100, 0, 0, 0),
	};
	union tw_record t13[] = {
		tw_call(0xc, 2, T0 + 100, T0 + 200, 0, 0, 0),
		tw_call(0xa, 0, T0, T0 + 1000, 0, 0, 0),
		tw_call(0xc, 1, T0 + 2000, T0 + 2100, 0, 0, 0),
		tw_call(0xc, 1, T0 + 3000, T0 + 3100, 0, 0, 0),
		tw_call(0xa, 0, T0 + 5000, T0 + 6000, 0, 0, 0),
	};
	char err[512] = "";

	tw_init(w);
	tw_meta(w, 0, 0, 1.0, 0);
	tw_text(w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 1, \"min_version\": 1,"
		" \"command\": [\"./app\"], \"start_ns\": 1000000, \"end_ns\": 1010000,"
		" \"wall_ns\": 10000, \"clock\": {\"source\": \"tsc\", \"ref_tsc\": 0,"
		" \"ref_ns\": 0, \"tsc_per_ns\": 1, \"invariant\": true}}\n");
	tw_text(w, "functions.tsv", "a\tliba.so\tA\nb\tliba.so\tB\nc\tlibc.so\tC\n");
	tw_proc(w, 11, 1, 0, T0, T0, T0 + 9000, T0 + 9000, "/bin/x");
	tw_events(w, 11, 0, 11, t11, 3);
	tw_events(w, 11, 0, 12, t12, 2);
	tw_events(w, 11, 0, 13, t13, 5);
	struct sibyl_trace *t = sibyl_trace_open(w->dir, err, sizeof(err));

	if (!t)
		fail_msg("open: %s", err);
	return t;
}

static void parents_and_self_times(void **state)
{
	(void)state;
	static const uint64_t parent[] = { 3, 3, 0, 0, 0, 7, 0, 0, 0, 0 };
	static const uint64_t self[] = { 1000, 500, 2500, 1000, 100, 100, 900, 100, 100, 1000 };
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	struct sibyl_trace_call c;
	size_t n = 0;

	sibyl_trace_iter_parents(it);
	while (sibyl_trace_iter_next(it, &c)) {
		assert_true(n < 10);
		assert_int_equal(c.id, n + 1);
		assert_int_equal(c.parent, parent[n]);
		assert_int_equal(c.self_ns, self[n]);
		n++;
	}
	assert_int_equal(n, 10);
	sibyl_trace_iter_free(it);
	/* Without parents asked for: the same ids and self times. */
	it = sibyl_trace_iter_new(t);
	for (n = 0; sibyl_trace_iter_next(it, &c); n++) {
		assert_int_equal(c.parent, 0);
		assert_int_equal(c.self_ns, self[n]);
	}
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static const struct sibyl_func_stats *find(const struct sibyl_trace_summary *s,
					   const char *name)
{
	for (size_t i = 0; i < s->nfunctions; i++)
		if (!strcmp(s->functions[i].function->name, name))
			return &s->functions[i];
	return NULL;
}

/* Summarise with the options a user would type. */
static struct sibyl_trace_summary *query(const struct sibyl_trace *t,
					 const struct sibyl_report_query *q)
{
	struct sibyl_report_selection sel;
	char err[256];

	if (sibyl_report_selection_init(&sel, t, q, err, sizeof(err)))
		fail_msg("query: %s", err);
	struct sibyl_trace_summary *s = sibyl_trace_summarize_opts(t, &sel.opts);

	sibyl_report_selection_free(&sel);
	return s;
}

static void spread_self_and_rates(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_report_query q = { .sort = "self" };
	struct sibyl_trace_summary *s = query(t, &q);
	const struct sibyl_func_stats *a = find(s, "A"), *b = find(s, "B");

	assert_string_equal(s->functions[0].function->name, "A");	/* by self */
	assert_int_equal(a->self_ns, 2500 + 1000 + 900 + 1000);
	assert_int_equal(b->self_ns, 1600);
	/* B: 1000, 500, 100 ns (GSL's quantiles interpolate). */
	assert_true(b->median_ns == 500.0);
	assert_true(fabs(b->p90_ns - 900.0) < 1e-9);
	assert_true(fabs(b->p99_ns - 990.0) < 1e-9);	/* 0.02 x 500 + 0.98 x 1000 */
	assert_true(fabs(b->stddev_ns - 450.924975) < 1e-5);
	assert_true(fabs(b->bytes_per_s - 22.0 / 1600e-9) < 1e-3);
	assert_true(fabs(b->work_per_s - 4.0 / 1600e-9) < 1e-3);
	assert_int_equal(b->counter_calls[SIBYL_CNT_CYCLES], 0);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void filters_select_calls(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	const char *keep[] = { "*@liba.so" }, *hide[] = { "B" }, *tids[] = { "11", "12" };
	struct sibyl_report_query q = { .keep = keep, .nkeep = 1, .hide = hide, .nhide = 1 };
	struct sibyl_trace_summary *s = query(t, &q);

	assert_int_equal(s->nfunctions, 1);
	assert_int_equal(s->calls, 4);	/* the A's */
	assert_true(s->filtered);
	sibyl_trace_summary_free(s);
	q = (struct sibyl_report_query){ .tids = tids, .ntids = 2, .min_duration = "1us" };
	s = query(t, &q);
	assert_int_equal(s->calls, 3);	/* A 4000, B 1000, A 1000 */
	sibyl_trace_summary_free(s);
	/* Since the start; the calls that lie within. */
	q = (struct sibyl_report_query){ .time_range = "1us~3.5us" };
	s = query(t, &q);
	assert_int_equal(s->calls, 4);	/* B [1000,2000), B [2500,3000), C, C */
	sibyl_trace_summary_free(s);
	q = (struct sibyl_report_query){ .time_range = "~1001000", .top = 1, .sort = "calls" };
	s = query(t, &q);
	assert_int_equal(s->nfunctions, 1);
	assert_int_equal(s->nfunctions_all, 2);
	assert_string_equal(s->functions[0].function->name, "A");
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void bad_queries_say_why(void **state)
{
	(void)state;
	const char *bad_glob[] = { "f@" }, *bad_pid[] = { "12x" };
	struct sibyl_report_query q[] = {
		{ .keep = bad_glob, .nkeep = 1 }, { .pids = bad_pid, .npids = 1 },
		{ .time_range = "5ms" }, { .time_range = "2ms~1ms" }, { .min_duration = "3 weeks" },
		{ .sort = "speed" }, { .top = -1 },
	};
	struct sibyl_report_selection sel;
	char err[256];

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		err[0] = '\0';
		assert_int_equal(sibyl_report_selection_init(&sel, NULL, &q[i], err, sizeof(err)),
				 -1);
		assert_true(strlen(err) > 10);
	}
	struct sibyl_report_columns cols;

	assert_int_equal(sibyl_report_columns_parse("calls,p90,cycles", &cols, err, 256), 0);
	assert_int_equal(cols.n, 3);
	assert_int_equal(sibyl_report_columns_parse("calls,name", &cols, err, 256), -1);
}

static void diff_of_a_trace_with_itself(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_TOTAL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sibyl_report_diff_print_text(f, s, s, "a", "b", 0);
	fclose(f);
	assert_non_null(strstr(buf, "1.000x  A [liba.so]"));
	assert_non_null(strstr(buf, "1.000x  C [libc.so]"));
	free(buf);
	f = open_memstream(&buf, &len);
	sibyl_report_diff_print_text(f, s, s, "a", "b", 1);	/* ties: by name */
	fclose(f);
	assert_non_null(strstr(buf, "A [liba.so]"));
	assert_null(strstr(buf, "C [libc.so]"));
	free(buf);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parents_and_self_times),
		cmocka_unit_test(spread_self_and_rates),
		cmocka_unit_test(filters_select_calls),
		cmocka_unit_test(bad_queries_say_why),
		cmocka_unit_test(diff_of_a_trace_with_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
