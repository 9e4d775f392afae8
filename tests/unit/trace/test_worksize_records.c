/* Automatic work sizes in a trace: in the call record itself (version 3)
 * or in a worksize record beside a manual expression's, and the
 * comparison `report --worksize-check` makes of the two. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/hash.h"
#include "sibyl/trace.h"
#include "trace_writer.h"

#define LIB "libfoo.so"

static uint32_t id_of(const char *fn)
{
	return sibyl_function_id(LIB, fn);
}

static union tw_record sized_call(uint32_t func, uint64_t start, uint64_t in, uint64_t out,
				  uint64_t inout, unsigned method)
{
	union tw_record r = tw_call(func, 0, start, start + 100, in, out, 0);

	r.call.inout_bytes = inout;
	r.call.size_method = (uint8_t)method;
	return r;
}

static union tw_record ws_record(uint32_t func, uint64_t start, unsigned method, uint64_t in,
				 uint64_t out, uint64_t inout)
{
	union tw_record r;
	struct sibyl_worksize_record w = {
		.kind = SIBYL_REC_WORKSIZE, .method = (uint8_t)method, .flags = SIBYL_WS_MANUAL,
		.func = func, .start_tsc = start, .in_bytes = in, .out_bytes = out,
		.inout_bytes = inout,
	};

	memset(&r, 0, sizeof(r));
	memcpy(r.bytes, &w, sizeof(w));
	return r;
}

/* A trace of thread 100's records r[0, n), and thread 101's r2[0, n2). */
static struct sibyl_trace *open_two(struct tw *w, const union tw_record *r, size_t n,
				    const union tw_record *r2, size_t n2, uint16_t version)
{
	char buf[128], err[512] = "";
	struct sibyl_events_header h = tw_events_header(100, 0, 100, n);
	struct sibyl_events_header h2 = tw_events_header(100, 0, 101, n2);

	h.version = h2.version = version;
	tw_init(w);
	tw_meta(w, 1000, 1000000000, 2.0, 5000);
	snprintf(buf, sizeof(buf), "%08x\t" LIB "\tfoo\n%08x\t" LIB "\tbar\n", id_of("foo"),
		 id_of("bar"));
	tw_text(w, "functions.tsv", buf);
	tw_proc(w, 100, 1, 0, 900, 999999950, 12000, 1000005500, "/usr/bin/app");
	tw_events_raw(w, &h, r, n, 0);
	if (n2)
		tw_events_raw(w, &h2, r2, n2, 0);

	struct sibyl_trace *t = sibyl_trace_open(w->dir, err, sizeof(err));

	assert_non_null(t);
	return t;
}

static struct sibyl_trace *open_with(struct tw *w, const union tw_record *r, size_t n,
				     uint16_t version)
{
	return open_two(w, r, n, NULL, 0, version);
}

/* A call record whose sizes an automatic method measured: attached as
 * that method's, in-out included, and not taken for a manual one. */
static void call_record_carries_method(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace_call c;
	union tw_record r[] = { sized_call(id_of("foo"), 1000, 300, 200, 50, SIBYL_WS_FULL),
				sized_call(id_of("bar"), 2000, 8, 16, 0, 0) };
	struct sibyl_trace *t = open_with(&w, r, 2, SIBYL_TRACE_VERSION);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_int_equal(c.ws_mask, 1u << SIBYL_WS_FULL);
	assert_false(c.ws_manual);
	assert_int_equal(c.ws[SIBYL_WS_FULL].in_bytes, 300);
	assert_int_equal(c.ws[SIBYL_WS_FULL].out_bytes, 200);
	assert_int_equal(c.ws[SIBYL_WS_FULL].inout_bytes, 50);
	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_int_equal(c.ws_mask, 0);
	assert_int_equal(c.in_bytes, 8);
	sibyl_trace_iter_free(it);

	/* Counted as automatic, compared with nothing. */
	struct sibyl_ws_check *k = sibyl_worksize_check(t);

	assert_int_equal(k->nentries, 1);
	assert_string_equal(sibyl_ws_method_name(k->entries[0].method), "full");
	assert_int_equal(k->entries[0].automatic, 1);
	assert_int_equal(k->entries[0].calls, 0);
	assert_true(isnan(k->entries[0].rmse_bytes));
	sibyl_worksize_check_free(k);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

/* Before version 3 those bytes were reserved and never written: a ring
 * slot reused from another record leaves anything there. */
static void version_2_bytes_are_ignored(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace_call c;
	union tw_record r[] = { sized_call(id_of("foo"), 1000, 300, 200, 777, SIBYL_WS_FAST) };
	struct sibyl_trace *t = open_with(&w, r, 1, 2);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_int_equal(c.ws_mask, 0);
	assert_int_equal(c.in_bytes, 300);
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

/* Manual sizes in the call record, each method's in a worksize record
 * after it: both methods compared, RMSE over input and output. */
static void manual_beside_methods(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace_call c;
	union tw_record r[] = {
		tw_call(id_of("foo"), 0, 1000, 1100, 100, 100, 0),
		ws_record(id_of("foo"), 1000, SIBYL_WS_FAST, 130, 100, 0),
		ws_record(id_of("foo"), 1000, SIBYL_WS_FULL, 100, 140, 20),
		/* A method's unknown number: skipped, not attached. */
		ws_record(id_of("foo"), 1000, SIBYL_WS_METHODS, 1, 1, 0),
	};
	struct sibyl_trace *t = open_with(&w, r, 4, SIBYL_TRACE_VERSION);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
	assert_true(c.ws_manual);
	assert_int_equal(c.ws_mask, (1u << SIBYL_WS_FAST) | (1u << SIBYL_WS_FULL));
	assert_int_equal(c.ws[SIBYL_WS_FULL].inout_bytes, 20);
	assert_int_equal(sibyl_trace_iter_next(it, &c), 0);
	sibyl_trace_iter_free(it);

	struct sibyl_ws_check *k = sibyl_worksize_check(t);

	assert_int_equal(k->nentries, 2);
	assert_int_equal(k->entries[0].method, SIBYL_WS_FAST);
	assert_int_equal(k->entries[0].calls, 1);
	assert_true(fabs(k->entries[0].rmse_bytes - sqrt(30.0 * 30 / 2)) < 1e-9);
	assert_int_equal(k->entries[1].method, SIBYL_WS_FULL);
	assert_true(fabs(k->entries[1].rmse_bytes - sqrt(40.0 * 40 / 2)) < 1e-9);
	assert_int_equal(k->npoints, 2);
	sibyl_worksize_check_free(k);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static union tw_record carry_record(uint32_t func, uint64_t start, uint64_t bytes)
{
	union tw_record r;
	struct sibyl_ws_carry_record c = {
		.kind = SIBYL_REC_WS_CARRY, .method = SIBYL_WS_FULL, .func = func,
		.start_tsc = start, .bytes = bytes,
	};

	memset(&r, 0, sizeof(r));
	memcpy(r.bytes, &c, sizeof(c));
	return r;
}

/* in_bytes of each call the iterator returns, in order (thread 100's,
 * then 101's). */
static void expect_inputs_two(const union tw_record *r, size_t n, const union tw_record *r2,
			      size_t n2, uint16_t version, const uint64_t *want, size_t nwant)
{
	struct tw w;
	struct sibyl_trace_call c;
	struct sibyl_trace *t = open_two(&w, r, n, r2, n2, version);
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);

	for (size_t i = 0; i < nwant; i++) {
		assert_int_equal(sibyl_trace_iter_next(it, &c), 1);
		assert_int_equal(c.in_bytes, want[i]);
		if (c.ws_mask)
			assert_int_equal(c.ws[SIBYL_WS_FULL].in_bytes, want[i]);
	}
	assert_int_equal(sibyl_trace_iter_next(it, &c), 0);
	sibyl_trace_iter_free(it);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static void expect_inputs(const union tw_record *r, size_t n, uint16_t version,
			  const uint64_t *want, size_t nwant)
{
	expect_inputs_two(r, n, NULL, 0, version, want, nwant);
}

/* A buffer read in parts: the second call's carry record gives it the
 * half of the first call's input it read, past a call measured by
 * other means in between; one naming no call changes nothing; a
 * version 4 reader's view (no carries) keeps the sizes as recorded. */
static void carry_moves_input_to_later_call(void **state)
{
	(void)state;
	uint32_t foo = id_of("foo"), bar = id_of("bar");
	union tw_record r[] = {
		sized_call(foo, 1000, 8200, 4096, 0, SIBYL_WS_FULL),
		sized_call(bar, 1500, 8, 0, 0, 0),
		sized_call(foo, 2000, 4101, 4096, 0, SIBYL_WS_FULL),
		carry_record(foo, 1000, 4096),
		carry_record(foo, 999, 77),
	};

	expect_inputs(r, 5, SIBYL_TRACE_VERSION, (const uint64_t[]){ 4104, 8, 4101 }, 3);
	expect_inputs(r, 5, 4, (const uint64_t[]){ 8200, 8, 4101 }, 3);
	/* Past the next call measured by full at that depth, a carry is not
	 * about this one. */
	union tw_record late[] = {
		sized_call(foo, 1000, 8200, 4096, 0, SIBYL_WS_FULL),
		sized_call(foo, 2000, 4101, 4096, 0, SIBYL_WS_FULL),
		sized_call(foo, 3000, 5, 4096, 0, SIBYL_WS_FULL),
		carry_record(foo, 1000, 4096),
	};

	expect_inputs(late, 4, SIBYL_TRACE_VERSION, (const uint64_t[]){ 8200, 4101, 5 }, 3);
}

/* Version 6: the later call ran on another thread (its file, 101),
 * while the earlier one may still have run; its carry record names
 * thread 100's call, in another file.  A carry naming a call that is
 * not there, or another thread's, changes nothing; a version 5 reader's
 * view keeps the sizes as recorded. */
static void carry_from_another_thread(void **state)
{
	(void)state;
	uint32_t foo = id_of("foo");
	union tw_record first[] = { sized_call(foo, 1000, 8200, 4096, 0, SIBYL_WS_FULL),
				    sized_call(foo, 5000, 300, 0, 0, SIBYL_WS_FULL) };
	union tw_record second[] = { sized_call(foo, 1001, 4104, 4096, 0, SIBYL_WS_FULL),
				     carry_record(foo, 1000, 4096),
				     carry_record(foo, 5000, 100) };
	struct sibyl_ws_carry_record *c = (struct sibyl_ws_carry_record *)second[1].bytes;

	c->flags = SIBYL_CARRY_OTHER_THREAD;
	c->tid = 100;
	c = (struct sibyl_ws_carry_record *)second[2].bytes;
	c->flags = SIBYL_CARRY_OTHER_THREAD;
	c->tid = 102;	/* no such thread: thread 100's call at 5000 keeps its bytes */
	expect_inputs_two(first, 2, second, 3, SIBYL_TRACE_VERSION,
			  (const uint64_t[]){ 4104, 300, 4104 }, 3);
	expect_inputs_two(first, 2, second, 3, 5, (const uint64_t[]){ 8200, 300, 4104 }, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(call_record_carries_method),
		cmocka_unit_test(version_2_bytes_are_ignored),
		cmocka_unit_test(manual_beside_methods),
		cmocka_unit_test(carry_moves_input_to_later_call),
		cmocka_unit_test(carry_from_another_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
