/* meta.json: what `sibyl trace` writes, the reader reads back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>

#include "sibyl/trace.h"
#include "trace/meta_write.h"
#include "trace_writer.h"

static char *command[] = { "prog", "-x", "in put", NULL };

/* A run as `sibyl trace` has it when the command starts. */
static struct sibyl_trace_run started(const struct sibyl_strlist *wrappers)
{
	return (struct sibyl_trace_run){
		.command = command, .wrappers = wrappers,
		.clock = { .ref_tsc = 1000, .ref_ns = 5000000000, .tsc_per_ns = 2.5 },
		.root_pid = 4242, .start_ns = 5000000000,
	};
}

static struct sibyl_trace *reopen(struct tw *w, const struct sibyl_trace_run *run)
{
	char err[512] = "";
	struct sibyl_trace *t;

	assert_int_equal(sibyl_trace_meta_write(w->dir, run), 0);
	t = sibyl_trace_open(w->dir, err, sizeof(err));
	if (!t)
		fail_msg("%s", err);
	return t;
}

static void read_back_while_running(void **state)
{
	(void)state;
	struct sibyl_strlist wrappers = { 0 };
	struct tw w;

	sibyl_strlist_add(&wrappers, "/abs/libwrap.so");
	tw_init(&w);
	struct sibyl_trace_run run = started(&wrappers);
	struct sibyl_trace *t = reopen(&w, &run);
	const struct sibyl_trace_meta *m = sibyl_trace_meta(t);

	assert_true(m->present);
	assert_int_equal(m->version, SIBYL_TRACE_VERSION);
	assert_int_equal(m->argc, 3);
	assert_string_equal(m->argv[2], "in put");
	assert_string_equal(m->command, "prog -x in put");
	assert_true(m->cwd[0] == '/');
	assert_int_equal(m->root_pid, 4242);
	assert_int_equal(m->clock.source, SIBYL_CLOCK_META);
	assert_int_equal(m->clock.ref_tsc, 1000);
	assert_true(m->clock.tsc_per_ns == 2.5);
	/* The end is not written yet: a reader calls the trace unfinished. */
	assert_false(m->finished);
	assert_false(m->complete);
	assert_int_equal(m->exit_kind, SIBYL_EXIT_UNKNOWN);
	sibyl_trace_close(t);
	tw_cleanup(&w);
	sibyl_strlist_free(&wrappers);
}

static void read_back_when_ended(void **state)
{
	(void)state;
	struct sibyl_strlist wrappers = { 0 };
	struct tw w;
	const struct {
		struct sibyl_run_status status;
		bool complete;
		enum sibyl_exit_kind kind;
		int code;
	} ends[] = {
		{ { SIBYL_RUN_FAILED, 3, NULL }, true, SIBYL_EXIT_STATUS, 3 },	/* exit(3) */
		{ { SIBYL_RUN_CRASHED, SIGSEGV, NULL }, false, SIBYL_EXIT_SIGNAL, SIGSEGV },
	};

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		struct sibyl_trace_run run = started(&wrappers);

		run.finished = true;
		run.end_ns = run.start_ns + 123456;
		run.status = ends[i].status;
		run.complete = ends[i].complete;
		/* What sibyl trace measured; one cost it could not measure. */
		run.costs = (struct sibyl_interposition_costs){ 21.5, NAN, 1900, 1.5e6, "" };
		if (i == 1)	/* and once the start-up probe, with its reason */
			run.costs = (struct sibyl_interposition_costs){ 21.5, NAN, 1900, NAN,
									"/bin/true killed by SIGSEGV" };
		tw_init(&w);
		/* Rewritten over the first version, as `sibyl trace` does. */
		struct sibyl_trace_run first = started(&wrappers);

		assert_int_equal(sibyl_trace_meta_write(w.dir, &first), 0);
		struct sibyl_trace *t = reopen(&w, &run);
		const struct sibyl_trace_meta *m = sibyl_trace_meta(t);

		assert_true(m->finished);
		assert_int_equal(m->complete, ends[i].complete);
		assert_int_equal(m->exit_kind, ends[i].kind);
		assert_int_equal(m->exit_code, ends[i].code);
		assert_int_equal(m->wall_ns, 123456);
		assert_int_equal(m->wall_source, SIBYL_WALL_META);
		assert_int_equal(m->argc, 3);
		assert_true(m->interposition_ns == 21.5);
		assert_true(isnan(m->counters_ns));
		assert_true(m->page_fault_ns == 1900);
		assert_true(i == 1 ? isnan(m->startup_ns) : m->startup_ns == 1.5e6);
		assert_string_equal(m->startup_why, i == 1 ? "/bin/true killed by SIGSEGV" : "");
		sibyl_trace_close(t);
		tw_cleanup(&w);
	}
}

static void unwritable_directory(void **state)
{
	(void)state;
	struct sibyl_strlist wrappers = { 0 };
	struct sibyl_trace_run run = started(&wrappers);

	errno = 0;
	assert_int_equal(sibyl_trace_meta_write("/nonexistent/sibyl-trace-dir", &run), -1);
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_back_while_running),
		cmocka_unit_test(read_back_when_ended),
		cmocka_unit_test(unwritable_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
