/*
 * SQLite export (schema in docs/formats.md).  One transaction with
 * journaling off: the file is a fresh temporary that the caller renames
 * into place only on success, so crash safety of the journal buys nothing.
 */
#include "trace/internal.h"
#include "core/log.h"
#include "core/progress.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char schema[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
	"CREATE TABLE processes(id INTEGER PRIMARY KEY, pid INTEGER, ppid INTEGER,"
	" gen INTEGER, exe TEXT, start_ns INTEGER, end_ns INTEGER, exited INTEGER);\n"
	"CREATE TABLE threads(id INTEGER PRIMARY KEY,"
	" process_id INTEGER REFERENCES processes(id), pid INTEGER, gen INTEGER,"
	" tid INTEGER, records INTEGER, calls INTEGER, dropped INTEGER, torn INTEGER,"
	" skipped INTEGER, first_ns INTEGER, last_ns INTEGER);\n"
	"CREATE TABLE functions(id INTEGER PRIMARY KEY, library TEXT, name TEXT);\n"
	"CREATE TABLE calls(id INTEGER PRIMARY KEY,"
	" thread_id INTEGER REFERENCES threads(id),"
	" function_id INTEGER REFERENCES functions(id), depth INTEGER,"
	" start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER,"
	" in_bytes INTEGER, out_bytes INTEGER, work REAL,"
	" task_clock_ns INTEGER, page_faults INTEGER, context_switches INTEGER,"
	" cpu_migrations INTEGER, cycles INTEGER, instructions INTEGER,"
	" size_method TEXT, inout_bytes INTEGER, fast_in_bytes INTEGER, fast_out_bytes INTEGER,"
	" full_in_bytes INTEGER, full_out_bytes INTEGER, full_inout_bytes INTEGER,"
	" parent_id INTEGER REFERENCES calls(id), self_ns INTEGER, abandoned INTEGER);\n";

static const char indexes[] =
	"CREATE INDEX calls_function ON calls(function_id);\n"
	"CREATE INDEX calls_thread_start ON calls(thread_id, start_ns);\n"
	"CREATE INDEX calls_parent ON calls(parent_id);\n"
	"CREATE INDEX threads_process ON threads(process_id);\n"
	"CREATE VIEW function_summary AS SELECT f.id AS function_id, f.library, f.name,"
	" count(c.id) AS calls, sum(c.duration_ns) AS total_ns, sum(c.self_ns) AS self_ns,"
	" avg(c.duration_ns) AS mean_ns, min(c.duration_ns) AS min_ns,"
	" max(c.duration_ns) AS max_ns, sum(c.in_bytes) AS in_bytes,"
	" sum(c.out_bytes) AS out_bytes, sum(c.work) AS work"
	" FROM functions f JOIN calls c ON c.function_id = f.id GROUP BY f.id;\n";

struct db {
	sqlite3 *h;
	char *err;
	size_t errlen;
};

static int db_fail(struct db *db, const char *what)
{
	return sibyl_seterr(db->err, db->errlen, "sqlite: %s: %s", what, sqlite3_errmsg(db->h));
}

static int exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(db, "exec");
}

static sqlite3_stmt *prepare(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		db_fail(db, "prepare");
	return st;
}

/* Step a statement whose parameters are bound, then reset it. */
static int step(struct db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, "insert");
}

static int64_t i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int put_meta_kv(struct db *db, sqlite3_stmt *st, const char *key, const char *value)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	return step(db, st);
}

static int put_meta(struct db *db, const struct sibyl_trace *t)
{
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);
	static const char *clk[] = { "meta.json", "proc" };
	static const char *wall[] = { "meta.json", "proc", "events" };
	sqlite3_stmt *st = prepare(db, "INSERT INTO meta VALUES(?, ?)");
	char n[10][40];
	int r = 0;

	if (!st)
		return -1;
	snprintf(n[0], 40, "%d", SIBYL_TRACE_READER_VERSION);
	snprintf(n[1], 40, "%llu", (unsigned long long)m->wall_ns);
	snprintf(n[2], 40, "%llu", (unsigned long long)m->start_ns);
	snprintf(n[3], 40, "%llu", (unsigned long long)m->end_ns);
	snprintf(n[4], 40, "%u", m->root_pid);
	snprintf(n[5], 40, "%.9g", m->clock.tsc_per_ns);
	snprintf(n[6], 40, "%d", m->exit_code);
	r |= put_meta_kv(db, st, "schema_version", "2");
	r |= put_meta_kv(db, st, "trace_version", n[0]);
	r |= put_meta_kv(db, st, "command", m->command);
	r |= put_meta_kv(db, st, "cwd", m->cwd);
	r |= put_meta_kv(db, st, "hostname", m->hostname);
	r |= put_meta_kv(db, st, "root_pid", n[4]);
	r |= put_meta_kv(db, st, "wall_ns", n[1]);
	r |= put_meta_kv(db, st, "start_ns", n[2]);
	r |= put_meta_kv(db, st, "end_ns", n[3]);
	r |= put_meta_kv(db, st, "wall_source", wall[m->wall_source]);
	r |= put_meta_kv(db, st, "clock_source", clk[m->clock.source]);
	r |= put_meta_kv(db, st, "tsc_per_ns", n[5]);
	if (m->exit_kind != SIBYL_EXIT_UNKNOWN)
		r |= put_meta_kv(db, st,
				 m->exit_kind == SIBYL_EXIT_STATUS ? "exit_status" : "exit_signal",
				 n[6]);
	sqlite3_finalize(st);
	return r ? -1 : 0;
}

static int put_processes(struct db *db, const struct sibyl_trace *t)
{
	sqlite3_stmt *st = prepare(db, "INSERT INTO processes VALUES(?,?,?,?,?,?,?,?)");
	int r = 0;

	if (!st)
		return -1;
	for (size_t i = 0; !r && i < sibyl_trace_process_count(t); i++) {
		const struct sibyl_trace_process *p = sibyl_trace_process(t, i);

		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_int64(st, 2, p->pid);
		sqlite3_bind_int64(st, 3, p->ppid);
		sqlite3_bind_int64(st, 4, p->gen);
		sqlite3_bind_text(st, 5, p->exe, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, i64(p->start_ns));
		sqlite3_bind_int64(st, 7, i64(p->end_ns));
		sqlite3_bind_int(st, 8, p->exited);
		r = step(db, st);
	}
	sqlite3_finalize(st);
	return r;
}

static int put_threads(struct db *db, const struct sibyl_trace *t)
{
	sqlite3_stmt *st = prepare(db, "INSERT INTO threads VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
	int r = 0;

	if (!st)
		return -1;
	for (size_t i = 0; !r && i < sibyl_trace_thread_count(t); i++) {
		const struct sibyl_trace_thread *th = sibyl_trace_thread(t, i);
		int64_t v[] = { (int64_t)i, (int64_t)th->process, th->pid, th->gen, th->tid,
				i64(th->records), i64(th->calls), i64(th->dropped),
				i64(th->torn), i64(th->skipped), i64(th->first_ns),
				i64(th->last_ns) };

		for (int k = 0; k < 12; k++)
			sqlite3_bind_int64(st, k + 1, v[k]);
		r = step(db, st);
	}
	sqlite3_finalize(st);
	return r;
}

static int put_functions(struct db *db, const struct sibyl_trace *t)
{
	sqlite3_stmt *st = prepare(db, "INSERT INTO functions VALUES(?,?,?)");
	int r = 0;

	if (!st)
		return -1;
	for (size_t i = 0; !r && i < sibyl_trace_function_count(t); i++) {
		const struct sibyl_trace_function *f = sibyl_trace_function(t, i);

		sqlite3_bind_int64(st, 1, f->id);
		sqlite3_bind_text(st, 2, f->library, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, f->name, -1, SQLITE_STATIC);
		r = step(db, st);
	}
	sqlite3_finalize(st);
	return r;
}

/* The automatic sizes from parameter `at` on; NULL when unmeasured. */
static void put_sizes(sqlite3_stmt *st, int at, const struct sibyl_trace_call *c)
{
	const char *source = sibyl_trace_call_size_source(c);

	if (source)
		sqlite3_bind_text(st, at, source, -1, SQLITE_STATIC);
	if (c->size_method == SIBYL_WS_FULL)
		sqlite3_bind_int64(st, at + 1, i64(c->inout_bytes));
	if (c->ws_mask & (1u << SIBYL_WS_FAST)) {
		sqlite3_bind_int64(st, at + 2, i64(c->ws[SIBYL_WS_FAST].in_bytes));
		sqlite3_bind_int64(st, at + 3, i64(c->ws[SIBYL_WS_FAST].out_bytes));
	}
	if (c->ws_mask & (1u << SIBYL_WS_FULL)) {
		sqlite3_bind_int64(st, at + 4, i64(c->ws[SIBYL_WS_FULL].in_bytes));
		sqlite3_bind_int64(st, at + 5, i64(c->ws[SIBYL_WS_FULL].out_bytes));
		sqlite3_bind_int64(st, at + 6, i64(c->ws[SIBYL_WS_FULL].inout_bytes));
	}
}

static int put_call(struct db *db, sqlite3_stmt *st, const struct sibyl_trace_call *c)
{
	int64_t v[] = { i64(c->id), (int64_t)c->thread, c->function->id, c->depth,
			i64(c->start_ns), i64(c->end_ns), i64(c->duration_ns),
			i64(c->in_bytes), i64(c->out_bytes) };

	for (int k = 0; k < 9; k++)
		sqlite3_bind_int64(st, k + 1, v[k]);
	sqlite3_bind_double(st, 10, c->work);
	/* Unbound parameters are NULL: a counter that was not measured, a
	 * call enclosed by no recorded call. */
	for (int k = 0; k < SIBYL_CNT_MAX; k++)
		if (c->counter_mask & (1u << k))
			sqlite3_bind_int64(st, 11 + k, i64(c->counters[k]));
	put_sizes(st, 11 + SIBYL_CNT_MAX, c);
	if (c->parent)
		sqlite3_bind_int64(st, 18 + SIBYL_CNT_MAX, i64(c->parent));
	sqlite3_bind_int64(st, 19 + SIBYL_CNT_MAX, i64(c->self_ns));
	sqlite3_bind_int(st, 20 + SIBYL_CNT_MAX, c->abandoned);
	return step(db, st);
}

static int put_calls(struct db *db, const struct sibyl_trace *t)
{
	sqlite3_stmt *st = prepare(db, "INSERT INTO calls(id, thread_id, function_id, depth,"
				   " start_ns, end_ns, duration_ns, in_bytes, out_bytes, work,"
				   " task_clock_ns, page_faults, context_switches,"
				   " cpu_migrations, cycles, instructions, size_method, inout_bytes,"
				   " fast_in_bytes, fast_out_bytes, full_in_bytes, full_out_bytes,"
				   " full_inout_bytes, parent_id, self_ns, abandoned)"
				   " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	struct sibyl_trace_iter *it;
	struct sibyl_trace_call c;
	struct sibyl_progress line;
	uint64_t done = 0, total = sibyl_trace_call_count(t);
	int r = 0;

	if (!st)
		return -1;
	it = sibyl_trace_iter_new(t);
	sibyl_trace_iter_parents(it);
	sibyl_progress_start(&line, stderr, "export", "calls");
	while (!r && sibyl_trace_iter_next(it, &c)) {
		r = put_call(db, st, &c);
		if (++done % EXPORT_PROGRESS_EVERY == 0)
			sibyl_progress_update(&line, (double)done, (double)total, "SQLite");
	}
	sibyl_progress_done(&line);
	sibyl_trace_iter_free(it);
	sqlite3_finalize(st);
	return r;
}

static int fill(struct db *db, const struct sibyl_trace *t)
{
	if (exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN") ||
	    exec(db, schema) || put_meta(db, t) || put_processes(db, t) ||
	    put_threads(db, t) || put_functions(db, t) || put_calls(db, t) ||
	    exec(db, indexes) || exec(db, "COMMIT"))
		return -1;
	return 0;
}

int sibyl_export_sqlite(const struct sibyl_trace *t, const char *path, char *err,
			size_t errlen)
{
	struct db db = { NULL, err, errlen };
	int r;

	struct stat st;

	/* An empty file is allowed: the caller's fresh temporary. */
	if (stat(path, &st) == 0 && st.st_size > 0)
		return sibyl_seterr(err, errlen, "%s: already exists", path);
	if (sqlite3_open_v2(path, &db.h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		r = db_fail(&db, path);
		sqlite3_close(db.h);
		return r;
	}
	r = fill(&db, t);
	if (sqlite3_close(db.h) != SQLITE_OK && !r)
		r = sibyl_seterr(err, errlen, "sqlite: close failed");
	return r;
}
