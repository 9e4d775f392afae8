/* CSV and SQLite exports, read back. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sibyl/trace.h"
#include "trace_writer.h"

/* rate 2 ticks/ns from ref (0, 1000); the second call has counters;
 * worksize.full measured the first one's sizes. */
static struct sibyl_trace *open_fixture(struct tw *w)
{
	union tw_record r[] = {
		tw_call(0xa, 0, 0, 2000, 5, 6, 0.5),
		tw_counters(0xb, 4000, 1u << SIBYL_CNT_TASK_CLOCK_NS, 900, 0),
		tw_call(0xb, 0, 4000, 6000, 7, 8, 9),
	};

	r[0].call.inout_bytes = 2;
	r[0].call.size_method = SIBYL_WS_FULL;
	char err[512] = "";

	tw_init(w);
	tw_meta(w, 0, 1000, 2.0, 5000);
	tw_text(w, "functions.tsv", "a\tlib,1.so\tA\nb\tlib\"2\tB\n");
	tw_proc(w, 3, 1, 0, 1, 1, 9000, 9000, "/bin/x");
	tw_events(w, 3, 0, 4, r, 3);
	struct sibyl_trace *t = sibyl_trace_open(w->dir, err, sizeof(err));

	if (!t)
		fail_msg("open: %s", err);
	return t;
}

static void csv_has_header_and_rows(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(sibyl_export_csv(t, f, err, sizeof(err)), 0);
	fclose(f);
	assert_string_equal(buf,
		"pid,gen,tid,function_id,library,function,depth,start_ns,end_ns,duration_ns,"
		"in_bytes,out_bytes,work,task_clock_ns,page_faults,context_switches,"
		"cpu_migrations,cycles,instructions,size_method,inout_bytes,fast_in_bytes,"
		"fast_out_bytes,full_in_bytes,full_out_bytes,full_inout_bytes,call_id,parent_id,"
		"self_ns,abandoned\n"
		"3,0,4,0000000a,\"lib,1.so\",A,0,1000,2000,1000,5,6,0.5,,,,,,,full,2,,,5,6,2,1,,1000,0\n"
		"3,0,4,0000000b,\"lib\"\"2\",B,0,3000,4000,1000,7,8,9,900,,,,,,,,,,,,,2,,1000,0\n");
	free(buf);
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void sqlite_is_queryable(void **state)
{
	(void)state;
	struct tw w;
	struct sibyl_trace *t = open_fixture(&w);
	char err[256] = "", path[300];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/out.db", w.dir);
	assert_int_equal(sibyl_export_sqlite(t, path, err, sizeof(err)), 0);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(query_int(db, "SELECT count(*) FROM calls"), 2);
	assert_int_equal(query_int(db, "SELECT sum(duration_ns) FROM calls"), 2000);
	assert_int_equal(query_int(db, "SELECT c.start_ns FROM calls c JOIN functions f"
				       " ON f.id = c.function_id WHERE f.name = 'B'"), 3000);
	assert_int_equal(query_int(db, "SELECT task_clock_ns FROM calls WHERE function_id = 11"),
			 900);
	assert_int_equal(query_int(db, "SELECT cycles FROM calls WHERE function_id = 11"), -2);
	assert_int_equal(query_int(db, "SELECT value FROM meta WHERE key = 'wall_ns'"), 5000);
	assert_int_equal(query_int(db, "SELECT full_inout_bytes FROM calls WHERE function_id = 10"
				       " AND size_method = 'full' AND inout_bytes = 2"), 2);
	assert_int_equal(query_int(db, "SELECT fast_in_bytes FROM calls WHERE function_id = 10"), -2);
	assert_int_equal(query_int(db, "SELECT size_method FROM calls WHERE function_id = 11"), -2);
	assert_int_equal(query_int(db, "SELECT t.tid FROM threads t JOIN processes p"
				       " ON p.id = t.process_id WHERE p.pid = 3"), 4);
	assert_int_equal(query_int(db, "SELECT calls FROM function_summary WHERE name = 'A'"), 1);
	assert_int_equal(query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
				       " AND tbl_name = 'calls'"), 3);
	assert_int_equal(query_int(db, "SELECT count(*) FROM calls WHERE parent_id IS NULL"), 2);
	assert_int_equal(query_int(db, "SELECT self_ns FROM calls WHERE id = 2"), 1000);
	sqlite3_close(db);
	/* Never writes into an existing database. */
	assert_int_equal(sibyl_export_sqlite(t, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "already exists"));
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_has_header_and_rows),
		cmocka_unit_test(sqlite_is_queryable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
