/* --check's race probe: the analysis of its log (races_scan.c,
 * races_global.c), on logs written here as the instrumented kernel
 * would, two work-groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ocl/instrument/instrument_internal.h"

#include <string.h>

enum { W, R, BAR, ATOM, COPY, STORE, GW, GR, GATOM, GW16, NSITES };	/* lines 10 to 19 */
#define RECORDS 16
#define GLOBAL (IC_RACE_GLOBAL | IC_RACE_VALUE)

static struct ic_race_site sites[NSITES] = {
	{ 10, IC_RACE_WRITE }, { 11, IC_RACE_READ }, { 12, IC_RACE_BARRIER },
	{ 13, IC_RACE_ATOMIC | IC_RACE_READ | IC_RACE_WRITE }, { 14, IC_RACE_GROUP | IC_RACE_WRITE },
	{ 15, IC_RACE_WRITE | IC_RACE_VALUE }, { 16, IC_RACE_WRITE | GLOBAL },
	{ 17, IC_RACE_READ | IC_RACE_GLOBAL },
	{ 18, IC_RACE_ATOMIC | IC_RACE_READ | IC_RACE_WRITE | IC_RACE_GLOBAL },
	{ 19, IC_RACE_WRITE | GLOBAL | IC_RACE_HASH },
};
static struct ic_layout layout = { .races = true, .race_sites = sites, .nsites = NSITES,
				   .race_groups = 2, .race_records = RECORDS };
static struct sibyl_instrumented in = { .layout = &layout };
static uint64_t log_[2][1 + IC_RACE_WORDS * RECORDS];

static int reset(void **state)
{
	(void)state;
	memset(log_, 0, sizeof(log_));
	return 0;
}

/* Work-item `item` of group g at site s touches len bytes at addr
 * (storing value; a barrier's flags). */
static void put_in(uint64_t g, unsigned s, uint64_t item, uint64_t addr, uint64_t len,
		   uint64_t value)
{
	uint64_t *e = log_[g] + 1 + IC_RACE_WORDS * log_[g][0]++;

	if (log_[g][0] > RECORDS)
		return;	/* the kernel counts on, stores nothing */
	e[0] = addr, e[1] = (uint64_t)s << 32 | item, e[2] = len, e[3] = value;
}

static void put_value(unsigned s, uint64_t item, uint64_t addr, uint64_t len, uint64_t value)
{
	put_in(0, s, item, addr, len, value);
}

static void put(unsigned s, uint64_t item, uint64_t addr, uint64_t len)
{
	put_value(s, item, addr, len, 0);
}

/* The log's verdict, asserted: a race or not, an uninitialised read or not. */
static struct sibyl_races expect(bool race, bool uninit)
{
	struct sibyl_races r;

	assert_int_equal(sibyl_instrumented_races(&in, log_, sizeof(log_), &r), 0);
	assert_int_equal(r.race.found, race);
	assert_int_equal(r.uninit.found, uninit);
	return r;
}

static void write_read_race(void **state)
{
	(void)state;
	put(W, 0, 100, 4);
	put(R, 1, 100, 4);
	struct sibyl_races r = expect(true, false);

	assert_int_equal(r.race.a.line, 10);
	assert_string_equal(r.race.a.what, "write");
	assert_int_equal(r.race.b.item, 1);
	assert_string_equal(r.race.b.what, "read");
	assert_int_equal(r.groups, 1);
}

/* The read first in the log: still a race, and not an uninitialised read. */
static void order_does_not_matter(void **state)
{
	(void)state;
	put(R, 1, 100, 4);
	put(W, 0, 100, 4);
	assert_int_equal(expect(true, false).race.a.line, 11);
}

/* A barrier each between: no race, nothing uninitialised. */
static void barrier_orders(void **state)
{
	(void)state;
	put(W, 0, 100, 4);
	put(BAR, 1, 0, 0);
	put(BAR, 0, 0, 0);
	put(R, 1, 100, 4);
	expect(false, false);
}

/* Bytes, not words: adjacent accesses never race, overlapping ones do. */
static void bytes(void **state)
{
	(void)state;
	put(W, 0, 100, 4);
	put(W, 1, 104, 4);
	expect(false, false);
	put(W, 2, 103, 2);
	expect(true, false);
}

/* Atomics race with plain accesses of another work-item only. */
static void atomics(void **state)
{
	(void)state;
	put(W, 0, 100, 4);
	for (uint64_t i = 0; i < 3; i++)
		put(BAR, i, 0, 0);
	put(ATOM, 0, 100, 4);
	put(ATOM, 1, 100, 4);
	expect(false, false);
	put(R, 2, 100, 4);
	assert_string_equal(expect(true, false).race.a.what, "atomic");
}

/* A read of what nothing wrote; one after the reader's own write is fine. */
static void uninitialised(void **state)
{
	(void)state;
	put(W, 0, 100, 4);
	put(R, 0, 100, 4);
	expect(false, false);
	put(R, 0, 96, 8);
	assert_int_equal(expect(false, true).uninit.a.line, 11);
}

/* Every work-item logs the group's async copy: no race among them. */
static void group_copy(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 4; i++)
		put(COPY, i, 100, 64);
	expect(false, false);
	put(R, 3, 120, 4);
	assert_int_equal(expect(true, false).race.a.item, SIBYL_RACE_GROUP);
}

/* Stores of the same value are not reported (Oclgrind's default), of
 * values that differ in one byte are. */
static void uniform_stores(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 4; i++)
		put_value(STORE, i, 100, 4, 0x01020304);
	expect(false, false);
	put_value(STORE, 7, 100, 4, 0x01020305);
	assert_int_equal(expect(true, false).race.b.item, 7);
}

/* A log that overflowed: its prefix is read, the group counted as cut. */
static void cut(void **state)
{
	struct sibyl_races r;

	(void)state;
	for (uint64_t i = 0; i < RECORDS + 5; i++)
		put(W, 0, 100 + 4 * i, 4);
	assert_int_equal(expect(false, false).truncated, 1);
	assert_int_equal(sibyl_instrumented_races(&in, log_, sizeof(log_) - 8, &r), -1);
}

/* __global's verdict: within a group, across groups. */
static struct sibyl_races expect_global(bool within, bool across)
{
	struct sibyl_races r = expect(false, false);

	assert_int_equal(r.global.found, within);
	assert_int_equal(r.across.found, across);
	return r;
}

/* Within a group only a barrier with a global fence orders __global
 * accesses; __local's are not mixed with them. */
static void global_fence(void **state)
{
	(void)state;
	put_value(GW, 0, 100, 4, 5);
	put_value(W, 1, 100, 4, 0);	/* __local, at the same address */
	for (uint64_t i = 0; i < 2; i++)
		put_value(BAR, i, 0, 0, 1);	/* CLK_LOCAL_MEM_FENCE */
	put_value(GR, 1, 100, 4, 0);
	struct sibyl_races r = expect_global(true, false);

	assert_int_equal(r.global.a.line, 16);
	assert_int_equal(r.global.b.line, 17);
	assert_int_equal(r.global.group, 0);
	reset(NULL);
	put_value(GW, 0, 100, 4, 5);
	for (uint64_t i = 0; i < 2; i++)
		put_value(BAR, i, 0, 0, 3);	/* both fences */
	put_value(GR, 1, 100, 4, 0);
	expect_global(false, false);
}

/* Across groups nothing orders: a write and a read race whatever the
 * barriers; atomics and equal stores do not, one work-item's do not. */
static void across_groups(void **state)
{
	(void)state;
	put_in(0, GW, 0, 100, 4, 5);
	put_in(0, GR, 0, 100, 4, 0);
	put_in(0, GATOM, 1, 200, 4, 0);
	put_in(1, GATOM, 40, 200, 4, 0);
	put_in(0, GW, 2, 300, 4, 9);
	put_in(1, GW, 41, 300, 4, 9);
	expect_global(false, false);
	put_in(1, BAR, 40, 0, 0, 2);
	put_in(1, GR, 40, 102, 1, 0);
	struct sibyl_races r = expect_global(false, true);

	assert_int_equal(r.across.a.group, 0);
	assert_int_equal(r.across.b.group, 1);
	assert_int_equal(r.across.b.item, 40);
	assert_string_equal(r.across.a.what, "write");
	/* a plain write beside the atomics, in 40's epoch too */
	put_in(1, GW, 41, 200, 4, 0);
	r = expect_global(true, true);
	assert_int_equal(r.across.lines, 2);
	assert_int_equal(r.global.group, 1);
}

/* 16-byte stores (float4) by two groups: equal fingerprints at one
 * address do not race; another fingerprint, or another address, does. */
static void vector_stores(void **state)
{
	(void)state;
	put_in(0, GW16, 0, 100, 16, 0x1234);
	put_in(1, GW16, 16, 100, 16, 0x1234);
	expect_global(false, false);
	put_in(1, GW16, 17, 104, 16, 0x1234);
	expect_global(true, true);
	reset(NULL);
	put_in(0, GW16, 0, 100, 16, 0x1234);
	put_in(1, GW16, 16, 100, 16, 0x1235);
	expect_global(false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(write_read_race, reset),
		cmocka_unit_test_setup(order_does_not_matter, reset),
		cmocka_unit_test_setup(barrier_orders, reset), cmocka_unit_test_setup(bytes, reset),
		cmocka_unit_test_setup(atomics, reset), cmocka_unit_test_setup(uninitialised, reset),
		cmocka_unit_test_setup(group_copy, reset), cmocka_unit_test_setup(uniform_stores, reset),
		cmocka_unit_test_setup(cut, reset), cmocka_unit_test_setup(global_fence, reset),
		cmocka_unit_test_setup(across_groups, reset),
		cmocka_unit_test_setup(vector_stores, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
