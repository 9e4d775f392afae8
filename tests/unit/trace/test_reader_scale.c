/*
 * The trace reader stays linear on pathological inputs.  Each case would
 * run for minutes with a quadratic or unbounded reader; the test itself
 * asserts no timing: the TIMEOUT of its CTest entry catches a slow one.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs.h"
#include "sibyl/trace.h"
#include "trace_writer.h"

/* Threads of processes whose .proc files are all missing: each process
 * gets a stub (it restarted the whole linking per stub). */
static void many_processes_without_proc_files(void **state)
{
	(void)state;
	enum { N = 50000 };
	struct tw w;
	char err[512] = "";

	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	for (uint32_t pid = 1; pid <= N; pid++)
		tw_events(&w, pid, 0, pid, NULL, 0);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_non_null(t);
	assert_int_equal(sibyl_trace_process_count(t), N);
	assert_int_equal(sibyl_trace_thread_count(t), N);
	for (size_t i = 0; i < N; i += 997) {
		const struct sibyl_trace_thread *th = sibyl_trace_thread(t, i);

		assert_int_equal(sibyl_trace_process(t, th->process)->pid, th->pid);
	}
	sibyl_trace_close(t);
	tw_cleanup(&w);
}

/* A sparse .events file whose header claims 2^34 records (1 TiB of
 * holes): the reader refuses it instead of scanning every record. */
static void sparse_events_file_is_refused(void **state)
{
	(void)state;
	struct tw w;
	char err[512] = "";
	uint64_t n = 1ull << 34;
	struct sibyl_events_header h = tw_events_header(7, 0, 7, n);

	tw_init(&w);
	tw_meta(&w, 1000, 1000000000, 2.0, 5000);
	tw_events_raw(&w, &h, NULL, 0, 0);
	char *path = sibyl_path_join(w.dir, "7.0-7.events");

	assert_int_equal(truncate(path, (off_t)(sizeof(h) + n * SIBYL_RECORD_SIZE)), 0);
	free(path);
	struct sibyl_trace *t = sibyl_trace_open(w.dir, err, sizeof(err));

	assert_null(t);
	assert_non_null(strstr(err, "7.0-7.events: "));
	assert_non_null(strstr(err, "never written"));
	tw_cleanup(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_processes_without_proc_files),
		cmocka_unit_test(sparse_events_file_is_refused),
	};

	if (getenv("SIBYL_TEST_FILTER"))	/* one case alone, e.g. to time it */
		cmocka_set_test_filter(getenv("SIBYL_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
