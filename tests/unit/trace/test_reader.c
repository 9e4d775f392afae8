/* The trace reader: counts, time conversion, and every corrupt input. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "sibyl/trace.h"
#include "trace_writer.h"

#define LIB "libfoo.so"

static uint32_t id_of(const char *fn)
{
	return sibyl_function_id(LIB, fn);
}

static void write_functions(struct tw *w)
{
	char buf[256];

	/* The same lines twice, as two processes loading the wrapper write them. */
	snprintf(buf, sizeof(buf), "%08x\t" LIB "\tfoo\n%08x\t" LIB "\tbar\n%08x\t" LIB "\tfoo\n"
		 "%08x\t" LIB "\tbar\n", id_of("foo"), id_of("bar"), id_of("foo"), id_of("bar"));
	tw_text(w, "functions.tsv", buf);
}

/* ns = 1e9 + (tsc - 1000) / 2 */
static void write_basic(struct tw *w)
{
	union tw_record r[] = {
		tw_call(id_of("bar"), 1, 1200, 1400, 10, 20, 1.5),
		tw_counters(id_of("bar"), 1200, 1u << SIBYL_CNT_CYCLES, 0, 777),
		tw_call(id_of("foo"), 0, 1000, 3000, 100, 200, 8),
	};

	tw_init(w);
	tw_meta(w, 1000, 1000000000, 2.0, 5000);
	write_functions(w);
	tw_proc(w, 100, 1, 0, 900, 999999950, 12000, 1000005500, "/usr/bin/app");
	tw_events(w, 100, 0, 100, r, 3);
}

static void reads_counts_and_converts_time(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	struct sibyl_trace_call c;

	write_basic(&w);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);

	assert_true(m->present);
	assert_string_equal(m->command, "./app --size 8");
	assert_int_equal(m->argc, 3);
	assert_int_equal(m->wall_ns, 5000);
	assert_int_equal(m->wall_source, SIBYL_WALL_META);
	assert_int_equal(m->exit_kind, SIBYL_EXIT_STATUS);
	assert_int_equal(m->exit_code, 3);
	assert_int_equal(m->clock.source, SIBYL_CLOCK_META);
	assert_int_equal(sibyl_trace_function_count(t), 2);	/* deduped */
	assert_string_equal(sibyl_trace_function_by_id(t, id_of("foo"))->name, "foo");
	assert_int_equal(sibyl_trace_process_count(t), 1);
	assert_string_equal(sibyl_trace_process(t, 0)->exe, "/usr/bin/app");
	assert_true(sibyl_trace_process(t, 0)->exited);
	assert_int_equal(sibyl_trace_thread_count(t), 1);
	assert_int_equal(sibyl_trace_thread(t, 0)->calls, 2);
	assert_int_equal(sibyl_trace_thread(t, 0)->records, 3);
	assert_int_equal(sibyl_trace_call_count(t), 2);

	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_string_equal(c.function->name, "bar");
	assert_int_equal(c.depth, 1);
	assert_int_equal(c.start_ns, 1000000100);
	assert_int_equal(c.end_ns, 1000000200);
	assert_int_equal(c.duration_ns, 100);
	assert_int_equal(c.in_bytes, 10);
	assert_int_equal(c.out_bytes, 20);
	assert_true(c.work == 1.5);
	assert_int_equal(c.counter_mask, 1u << SIBYL_CNT_CYCLES);
	assert_int_equal(c.counters[SIBYL_CNT_CYCLES], 777);
	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_string_equal(c.function->name, "foo");
	assert_int_equal(c.start_ns, 1000000000);
	assert_int_equal(c.duration_ns, 1000);
	assert_int_equal(c.counter_mask, 0);
	assert_int_equal(sibyl_trace_iter_next(it, &c), 0);
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void calibrates_from_proc_files(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	union tw_record r[] = { tw_call(id_of("foo"), 0, 21000, 41000, 0, 0, 0) };
	struct sibyl_trace_call c;

	tw_init(&w);
	write_functions(&w);
	/* 4 ticks per ns: start (1000, 500), end (401000, 100500). */
	tw_proc(&w, 7, 1, 0, 1000, 500, 401000, 100500, "/bin/a");
	tw_events(&w, 7, 0, 8, r, 1);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	assert_false(sibyl_trace_meta(t)->present);
	assert_int_equal(sibyl_trace_meta(t)->clock.source, SIBYL_CLOCK_PROC);
	assert_int_equal(sibyl_trace_meta(t)->wall_source, SIBYL_WALL_PROC);
	assert_int_equal(sibyl_trace_meta(t)->wall_ns, 100000);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_int_equal(c.start_ns, 5500);
	assert_int_equal(c.end_ns, 10500);
	assert_int_equal(c.duration_ns, 5000);
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

/* Two processes that never exited: their two start pairs still calibrate. */
static void calibrates_from_start_pairs(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	union tw_record r[] = { tw_call(id_of("foo"), 0, 3000, 5000, 0, 0, 0) };

	tw_init(&w);
	tw_proc(&w, 7, 1, 0, 1000, 1000, 0, 0, "/bin/a");
	tw_proc(&w, 8, 7, 0, 3000, 2000, 0, 0, "/bin/b");
	tw_events(&w, 8, 0, 8, r, 1);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	assert_true(sibyl_trace_meta(t)->clock.tsc_per_ns == 2.0);
	/* Process 8 ran at least until its last call ended. */
	assert_int_equal(sibyl_trace_process(t, 1)->end_ns, 3000);
	assert_false(sibyl_trace_process(t, 1)->exited);
	assert_int_equal(sibyl_trace_meta(t)->wall_ns, 2000);
	/* No functions.tsv: the id still has a printable placeholder. */
	assert_string_equal(sibyl_trace_function_by_id(t, id_of("foo"))->library, "?");
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void cannot_calibrate_is_an_error(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	union tw_record r[] = { tw_call(id_of("foo"), 0, 3000, 5000, 0, 0, 0) };

	tw_init(&w);
	tw_proc(&w, 7, 1, 0, 1000, 1000, 0, 0, "/bin/a");
	tw_events(&w, 7, 0, 7, r, 1);
	assert_null(sibyl_trace_open(w.dir, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot convert TSC"));
	tw_cleanup(&w);
}

static void skips_torn_unknown_and_counts_dropped(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	union tw_record r[6];
	struct sibyl_events_header h = tw_events_header(100, 0, 101, 5);

	memset(r, 0, sizeof(r));
	r[0] = tw_call(id_of("foo"), 0, 1000, 1100, 0, 0, 0);
	/* r[1] stays zero: torn by a crash */
	r[2].call.kind = 77;	/* from a newer runtime */
	r[3] = tw_counters(id_of("bar"), 5, 1, 9, 0);	/* its call never landed */
	r[4] = tw_call(id_of("bar"), 0, 2000, 2100, 0, 0, 0);
	r[5] = tw_call(id_of("bar"), 0, 3000, 3100, 0, 0, 0);	/* beyond committed */
	h.dropped = 12;
	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	write_functions(&w);
	/* Preallocated zero tail past the committed records is normal. */
	tw_events_raw(&w, &h, r, 6, 4096);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	const struct sibyl_trace_thread *th = sibyl_trace_thread(t, 0);

	assert_int_equal(th->calls, 2);
	assert_int_equal(th->torn, 1);
	assert_int_equal(th->skipped, 2);
	assert_int_equal(th->dropped, 12);
	assert_int_equal(th->process, 0);	/* a stub process without .proc file */
	assert_false(sibyl_trace_process(t, 0)->has_proc_file);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void accepts_newer_compatible_version(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	union tw_record r[] = { tw_call(id_of("foo"), 0, 1000, 1100, 0, 0, 0) };
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	h.version = SIBYL_TRACE_VERSION + 1;	/* min_version stays ours */
	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	tw_events_raw(&w, &h, r, 1, 0);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

/* The in-memory parser: counters before or after their call, mismatches. */
static void parses_events_buffer(void **state)
{
	(void)state;
	struct {
		struct sibyl_events_header h;
		union tw_record r[5];
	} buf;
	struct sibyl_events_info info;
	char err[256] = "";

	memset(&buf, 0, sizeof(buf));
	buf.h = tw_events_header(1, 0, 2, 5);
	buf.r[0] = tw_counters(0xa, 100, 1, 5, 0);		/* before its call */
	buf.r[1] = tw_call(0xa, 0, 100, 200, 0, 0, 0);
	buf.r[2] = tw_call(0xb, 0, 300, 400, 0, 0, 0);
	buf.r[3] = tw_counters(0xb, 300, 1, 5, 0);		/* after its call */
	buf.r[4] = tw_counters(0xb, 999, 1, 5, 0);		/* nobody's */
	assert_int_equal(sibyl_events_parse(&buf, sizeof(buf), &info, err, sizeof(err)), 0);
	assert_int_equal(info.calls, 2);
	assert_int_equal(info.counters, 2);
	assert_int_equal(info.skipped, 1);
	assert_int_equal(info.first_tsc, 100);
	assert_int_equal(info.last_tsc, 400);
	assert_int_equal(sibyl_events_parse(&buf, 100, &info, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "truncated header"));
}

/* ---- corrupt inputs: each must fail with a message naming the cause ---- */

static void expect_error(struct tw *w, const char *needle)
{
	char err[512] = "";
	struct sibyl_trace *t = sibyl_trace_open(w->dir, err, sizeof(err));

	if (t || !strstr(err, needle))
		fail_msg("expected an error containing '%s', got '%s'", needle,
			 t ? "(opened)" : err);
	tw_cleanup(w);
}

/* A trace whose only fault is `file` holding `text`: the error names it. */
static void expect_file_error(const char *file, const char *text, const char *needle)
{
	struct tw w;

	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	tw_text(&w, file, text);
	expect_error(&w, needle);
}

static void events_with(struct tw *w, struct sibyl_events_header h, size_t nrec)
{
	union tw_record r[2] = { tw_call(id_of("foo"), 0, 1000, 1100, 0, 0, 0),
				 tw_call(id_of("foo"), 0, 1200, 1300, 0, 0, 0) };

	tw_init(w);
	tw_meta(w, 1000, 1000000000, 2.0, 5000);
	tw_events_raw(w, &h, r, nrec, 0);
}

static void rejects_bad_magic(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	memcpy(h.magic, "NOTSIBYL", 8);
	events_with(&w, h, 1);
	expect_error(&w, "bad magic");
}

static void rejects_truncated_events(void **state)
{
	(void)state;
	struct tw w;

	events_with(&w, tw_events_header(1, 0, 1, 2), 1);
	expect_error(&w, "truncated");
}

static void rejects_truncated_header(void **state)
{
	(void)state;
	struct tw w;

	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	tw_file(&w, "1.0-1.events", "SIBYLEVT", 8);
	expect_error(&w, "1.0-1.events: truncated header");
}

static void rejects_future_version(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	h.version = SIBYL_TRACE_VERSION + 1;
	h.min_version = SIBYL_TRACE_VERSION + 1;
	events_with(&w, h, 1);
	expect_error(&w, "unsupported format version");
}

static void rejects_wrong_record_size(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	h.record_size = 48;
	events_with(&w, h, 1);
	expect_error(&w, "record size 48");
}

static void rejects_other_byte_order(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	h.endian = __builtin_bswap32(SIBYL_TRACE_ENDIAN_MARK);
	events_with(&w, h, 1);
	expect_error(&w, "byte order");
}

static void rejects_mismatched_name(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_events_header h = tw_events_header(1, 0, 1, 1);

	events_with(&w, h, 1);
	char *from, *to;

	if (asprintf(&from, "%s/1.0-1.events", w.dir) < 0 ||
	    asprintf(&to, "%s/2.0-1.events", w.dir) < 0 || rename(from, to))
		fail();
	free(from);
	free(to);
	expect_error(&w, "header says pid 1");
}

/* Threads whose buffer could not be created: counted in the .proc header
 * since version 2; a version 1 header has 8 more bytes of exe there. */
static void reads_lost_threads(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "", exe[440];
	uint64_t threads, calls;
	struct sibyl_proc_header h = tw_proc_header(7, 1, 0, 900, 999999950, 0, 0, "/bin/a");

	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	h.lost_threads = 3;
	h.lost_calls = 42;
	tw_proc_raw(&w, &h);
	h = tw_proc_header(8, 1, 0, 900, 999999950, 0, 0, "");
	h.version = h.min_version = 1;
	memset(exe, 'x', sizeof(exe) - 1);
	exe[sizeof(exe) - 1] = '\0';
	/* runs into lost_calls, as in version 1 */
	memcpy((char *)&h + offsetof(struct sibyl_proc_header, exe), exe, sizeof(exe));
	tw_proc_raw(&w, &h);

	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	assert_int_equal(sibyl_trace_process(t, 0)->lost_threads, 3);
	assert_int_equal(sibyl_trace_process(t, 0)->lost_calls, 42);
	assert_int_equal(sibyl_trace_process(t, 1)->lost_threads, 0);
	assert_int_equal(sibyl_trace_process(t, 1)->lost_calls, 0);
	assert_string_equal(sibyl_trace_process(t, 1)->exe, exe);

	struct sibyl_trace_summary *s = sibyl_trace_summarize(t, SIBYL_SORT_TOTAL);

	assert_int_equal(s->lost_threads, 3);
	assert_int_equal(s->lost_calls, 42);
	sibyl_trace_summary_free(s);
	sibyl_trace_close(t);
	assert_int_equal(sibyl_trace_lost(w.dir, &threads, &calls), 0);
	assert_int_equal(threads, 3);
	assert_int_equal(calls, 42);
	tw_cleanup(&w);
}

/* complete: version 2 only when `sibyl trace` said so at its end; version
 * 1 (no such field) when the run finished. */
static void reads_completeness(void **state)
{
	(void)state;
	static const struct {
		const char *fields;
		bool finished, complete;
	} cases[] = {
		{ "\"version\": 1, \"exit\": {\"status\": 0}", true, true },
		{ "\"version\": 1", false, false },
		{ "\"version\": 2", false, false },
		{ "\"version\": 2, \"exit\": {\"status\": 0}", true, false },
		{ "\"version\": 2, \"exit\": {\"status\": 0}, \"complete\": false", true, false },
		{ "\"version\": 2, \"exit\": {\"signal\": 9}, \"complete\": true", true, true },
		{ "\"version\": 2, \"complete\": true", false, false },
	};
	char text[256], err[512] = "";
	struct tw w;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tw_init(&w);
		snprintf(text, sizeof(text), "{\"format\": \"sibyl-trace\", %s}", cases[i].fields);
		tw_text(&w, "meta.json", text);
		struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

		assert_non_null(t);
		assert_int_equal(sibyl_trace_meta(t)->finished, cases[i].finished);
		assert_int_equal(sibyl_trace_meta(t)->complete, cases[i].complete);
		sibyl_trace_close(t);
		tw_cleanup(&w);
	}
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 2, \"complete\": 1}");
	expect_error(&w, "'complete' must be true or false");
}

static void rejects_bad_proc_file(void **state)
{
	(void)state;
	expect_file_error("5.0.proc", "garbage", "5.0.proc: truncated header");
}

static void rejects_malformed_meta(void **state)
{
	(void)state;
	struct tw w;

	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 1,");
	expect_error(&w, "meta.json: malformed JSON");
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 1,"
		" \"clock\": {\"ref_tsc\": 1, \"ref_ns\": 2, \"tsc_per_ns\": -1}}");
	expect_error(&w, "tsc_per_ns");
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 1, \"wall_ns\": \"x\"}");
	expect_error(&w, "'wall_ns'");
}

/* What sibyl trace measured on its machine: optional, NAN when absent. */
static void reads_measured_costs(void **state)
{
	(void)state;
	struct tw w;
	char err[256];

	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 2, \"interposition\": "
		"{\"per_call_ns\": 21.5, \"counters_per_call_ns\": null}, \"page_fault_ns\": 1900}");
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	assert_true(sibyl_trace_meta(t)->interposition_ns == 21.5);
	assert_true(isnan(sibyl_trace_meta(t)->counters_ns));
	assert_true(sibyl_trace_meta(t)->page_fault_ns == 1900);
	sibyl_trace_close(t);
	tw_cleanup(&w);
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 2}");
	t = sibyl_trace_open(w.dir, err, sizeof(err));
	assert_non_null(t);
	assert_true(isnan(sibyl_trace_meta(t)->interposition_ns));
	sibyl_trace_close(t);
	tw_cleanup(&w);
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 2, \"interposition\": "
		"{\"per_call_ns\": -3}}");
	expect_error(&w, "'interposition.per_call_ns' must be a number >= 0");
	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 2, \"page_fault_ns\": \"x\"}");
	expect_error(&w, "'page_fault_ns' must be a number >= 0");
}

static void rejects_future_meta(void **state)
{
	(void)state;
	struct tw w;

	tw_init(&w);
	tw_text(&w, "meta.json", "{\"format\": \"sibyl-trace\", \"version\": 9, \"min_version\": 9}");
	expect_error(&w, "meta.json: unsupported format version 9");
}

static void rejects_malformed_functions(void **state)
{
	(void)state;
	expect_file_error("functions.tsv", "0000abcd\tlib\tf\nnot a line\n",
			  "functions.tsv: line 2");
	expect_file_error("functions.tsv", "xyz\tlib\tf\n", "bad function id");
}

static void rejects_id_collision(void **state)
{
	(void)state;
	expect_file_error("functions.tsv", "0000abcd\tlib\tf\n0000abcd\tlib\tg\n",
			  "function id 0x0000abcd names both lib:f and lib:g");
}

static void rejects_empty_and_missing_dir(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";

	tw_init(&w);
	expect_error(&w, "not a trace");
	assert_null(sibyl_trace_open("/nonexistent/sibyl-trace", err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_counts_and_converts_time),
		cmocka_unit_test(calibrates_from_proc_files),
		cmocka_unit_test(calibrates_from_start_pairs),
		cmocka_unit_test(cannot_calibrate_is_an_error),
		cmocka_unit_test(skips_torn_unknown_and_counts_dropped),
		cmocka_unit_test(accepts_newer_compatible_version),
		cmocka_unit_test(parses_events_buffer),
		cmocka_unit_test(rejects_bad_magic),
		cmocka_unit_test(rejects_truncated_events),
		cmocka_unit_test(rejects_truncated_header),
		cmocka_unit_test(rejects_future_version),
		cmocka_unit_test(rejects_wrong_record_size),
		cmocka_unit_test(rejects_other_byte_order),
		cmocka_unit_test(rejects_mismatched_name),
		cmocka_unit_test(rejects_bad_proc_file),
		cmocka_unit_test(rejects_malformed_meta),
		cmocka_unit_test(reads_measured_costs),
		cmocka_unit_test(rejects_future_meta),
		cmocka_unit_test(reads_lost_threads),
		cmocka_unit_test(reads_completeness),
		cmocka_unit_test(rejects_malformed_functions),
		cmocka_unit_test(rejects_id_collision),
		cmocka_unit_test(rejects_empty_and_missing_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
