/* The child-process runner (core/run.h) on real programs: sh, cat, env,
 * sleep.  Exit codes, signals, deadlines (and process groups), start
 * failures, waits interrupted by signals, descriptors at fixed numbers,
 * environment and directory. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static struct sibyl_run_status run_sh(const char *script, double timeout_s)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct sibyl_run_spec spec = { .argv = argv, .timeout_s = timeout_s };
	struct sibyl_run_status st;

	sibyl_run(&spec, &st);
	return st;
}

/* What sh -c script writes to stdout. */
static char *capture_sh(struct sibyl_run_spec *spec, const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL }, *out;
	struct sibyl_run_status st;
	size_t len;

	spec->argv = argv;
	sibyl_run_capture(spec, 1, 1 << 20, &out, &len, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_OK);
	assert_int_equal(strlen(out), len);
	return out;
}

static void exit_codes(void **state)
{
	(void)state;
	struct sibyl_run_status st = run_sh("exit 0", 0);
	char buf[128];

	assert_int_equal(st.outcome, SIBYL_RUN_OK);
	st = run_sh("exit 3", 0);
	assert_int_equal(st.outcome, SIBYL_RUN_FAILED);
	assert_int_equal(st.code, 3);
	assert_string_equal(sibyl_run_describe(&st, buf, sizeof(buf)), "exited with status 3");
	st = run_sh("exit 255", 10);
	assert_int_equal(st.outcome, SIBYL_RUN_FAILED);
	assert_int_equal(st.code, 255);
}

static void signals(void **state)
{
	(void)state;
	struct sibyl_run_status st = run_sh("kill -SEGV $$", 0);
	char buf[128];

	assert_int_equal(st.outcome, SIBYL_RUN_CRASHED);
	assert_int_equal(st.code, SIGSEGV);
	assert_string_equal(sibyl_run_describe(&st, buf, sizeof(buf)), "killed by SIGSEGV");
	st = run_sh("kill -USR1 $$", 10);
	assert_int_equal(st.outcome, SIBYL_RUN_CRASHED);
	assert_int_equal(st.code, SIGUSR1);
}

static void timeouts(void **state)
{
	(void)state;
	char buf[128];
	struct sibyl_run_status st = run_sh("exec sleep 30", 0.2);

	assert_int_equal(st.outcome, SIBYL_RUN_TIMED_OUT);
	assert_int_equal(st.code, SIGTERM);
	assert_string_equal(sibyl_run_describe(&st, buf, sizeof(buf)),
			    "timed out (killed by SIGTERM)");
	/* Ignoring SIGTERM (sleep inherits the ignored disposition) only
	 * delays the end by the grace period. */
	st = run_sh("trap '' TERM; exec sleep 30", 0.2);
	assert_int_equal(st.outcome, SIBYL_RUN_TIMED_OUT);
	assert_int_equal(st.code, SIGKILL);
	/* Ending before the deadline is not a timeout. */
	st = run_sh("exit 4", 30);
	assert_int_equal(st.outcome, SIBYL_RUN_FAILED);
}

/* Did every holder of the pipe's write end close it within 10 s? */
static bool closed_by_all(int rd)
{
	struct pollfd p = { rd, POLLIN, 0 };
	char c;

	return poll(&p, 1, 10000) == 1 && read(rd, &c, 1) == 0;
}

/* With its own group, the deadline also ends what the child started. */
static void timeout_kills_the_group(void **state)
{
	(void)state;
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	struct sibyl_run_fd fds[] = { { p[1], 5 } };
	char *argv[] = { "sh", "-c", "sleep 30 & wait", NULL };
	struct sibyl_run_spec spec = { .argv = argv, .fds = fds, .nfds = 1, .own_group = true,
				       .timeout_s = 0.3 };
	struct sibyl_run_status st;

	sibyl_run(&spec, &st);
	close(p[1]);
	assert_int_equal(st.outcome, SIBYL_RUN_TIMED_OUT);
	assert_true(closed_by_all(p[0]));	/* the grandchild sleep is gone too */
	close(p[0]);
}

static void start_failures(void **state)
{
	(void)state;
	char *missing[] = { "/nonexistent/sibyl-no-such-program", NULL };
	char *unfound[] = { "sibyl-no-such-program", NULL };
	char *not_exec[] = { "/etc/passwd", NULL };
	char *sh[] = { "sh", "-c", "exit 0", NULL };
	struct sibyl_run_spec spec = { .argv = missing };
	struct sibyl_run_status st;
	struct sibyl_child c;
	char buf[128];

	assert_int_equal(sibyl_run_start(&spec, &c, &st), -1);
	assert_int_equal(st.outcome, SIBYL_RUN_NOT_STARTED);
	assert_int_equal(st.code, ENOENT);
	assert_string_equal(st.step, "exec");
	assert_string_equal(sibyl_run_describe(&st, buf, sizeof(buf)),
			    "cannot run: No such file or directory");
	spec.argv = unfound;
	sibyl_run(&spec, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_NOT_STARTED);
	assert_int_equal(st.code, ENOENT);
	spec.argv = not_exec;
	sibyl_run(&spec, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_NOT_STARTED);
	assert_int_equal(st.code, EACCES);
	spec = (struct sibyl_run_spec){ .argv = sh, .dir = "/nonexistent/dir" };
	sibyl_run(&spec, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_NOT_STARTED);
	assert_string_equal(st.step, "chdir");
	assert_int_equal(st.code, ENOENT);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A handler without SA_RESTART firing every 5 ms makes waitpid, poll
 * and read fail with EINTR again and again: the outcome is unchanged. */
static void interrupted_waits(void **state)
{
	(void)state;
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval every = { { 0, 5000 }, { 0, 5000 } }, off = { 0 };

	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &every, NULL);
	struct sibyl_run_status plain = run_sh("sleep 0.3; exit 7", 0);
	struct sibyl_run_status timed = run_sh("sleep 0.3; exit 8", 30);
	struct sibyl_run_spec spec = { 0 };
	char *out = capture_sh(&spec, "sleep 0.3; echo done");

	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(alarms > 10);
	assert_int_equal(plain.outcome, SIBYL_RUN_FAILED);
	assert_int_equal(plain.code, 7);
	assert_int_equal(timed.outcome, SIBYL_RUN_FAILED);
	assert_int_equal(timed.code, 8);
	assert_string_equal(out, "done\n");
	free(out);
}

/* A pipe above the numbers the test places descriptors at. */
static void high_pipe(int p[2])
{
	assert_int_equal(pipe(p), 0);
	for (int i = 0; i < 2; i++) {
		int high = fcntl(p[i], F_DUPFD, 30);

		assert_true(high >= 30);
		close(p[i]);
		p[i] = high;
	}
}

/* Two descriptors swapped on the way: placing one must not clobber the
 * other's source. */
static void fds_at_fixed_numbers(void **state)
{
	(void)state;
	int a[2], b[2], in[2];
	char got[16] = { 0 };

	high_pipe(a);
	high_pipe(b);
	high_pipe(in);
	assert_int_equal(dup2(a[1], 8), 8);
	assert_int_equal(dup2(b[1], 9), 9);
	close(a[1]);
	close(b[1]);
	assert_int_equal(write(in[1], "xyz", 3), 3);
	close(in[1]);
	struct sibyl_run_fd fds[] = { { 8, 9 }, { 9, 8 }, { in[0], 0 } };
	struct sibyl_run_spec spec = { .fds = fds, .nfds = 3 };
	char *out = capture_sh(&spec, "echo A >&9; echo B >&8; cat");

	close(8);
	close(9);
	close(in[0]);
	assert_string_equal(out, "xyz");
	assert_int_equal(read(a[0], got, sizeof(got) - 1), 2);
	assert_string_equal(got, "A\n");
	assert_int_equal(read(b[0], got, sizeof(got) - 1), 2);
	assert_string_equal(got, "B\n");
	close(a[0]);
	close(b[0]);
	free(out);
	fds[0] = (struct sibyl_run_fd){ SIBYL_RUN_DEVNULL, 0 };
	spec = (struct sibyl_run_spec){ .fds = fds, .nfds = 1 };
	out = capture_sh(&spec, "cat; echo end");
	assert_string_equal(out, "end\n");
	free(out);
}

static void environment_and_dir(void **state)
{
	(void)state;
	const char *set[] = { "SIBYL_TEST_NEW=2", "SIBYL_TEST_KEEP=3", NULL };
	const char *unset[] = { "SIBYL_TEST_DROP", NULL };
	struct sibyl_run_spec spec = { .set = set, .unset = unset, .dir = "/" };

	setenv("SIBYL_TEST_KEEP", "1", 1);
	setenv("SIBYL_TEST_DROP", "1", 1);
	setenv("SIBYL_TEST_DROPPED_NOT", "4", 1);
	char *out = capture_sh(&spec, "echo \"$SIBYL_TEST_KEEP/${SIBYL_TEST_DROP-unset}/"
				      "$SIBYL_TEST_NEW/$SIBYL_TEST_DROPPED_NOT\"; pwd; "
				      "env | grep -c '^SIBYL_TEST_KEEP='");

	assert_string_equal(out, "3/unset/2/4\n/\n1\n");
	assert_string_equal(getenv("SIBYL_TEST_KEEP"), "1");	/* ours is untouched */
	free(out);
}

/* Past max the output is read and dropped: the child is never blocked. */
static void capture_limit(void **state)
{
	(void)state;
	char *argv[] = { "head", "-c", "1000000", "/dev/zero", NULL }, *out;
	struct sibyl_run_spec spec = { .argv = argv, .timeout_s = 60 };
	struct sibyl_run_status st;
	size_t len;

	sibyl_run_capture(&spec, 1, 10, &out, &len, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_OK);
	assert_int_equal(len, 10);
	free(out);
	char *sh[] = { "sh", "-c", "echo partial; exec sleep 30", NULL };

	spec = (struct sibyl_run_spec){ .argv = sh, .timeout_s = 0.3 };
	sibyl_run_capture(&spec, 1, 100, &out, &len, &st);
	assert_int_equal(st.outcome, SIBYL_RUN_TIMED_OUT);
	assert_string_equal(out, "partial\n");
	free(out);
}

static void helper_path(void **state)
{
	(void)state;
	char *p;

	setenv("SIBYL_TEST_HELPER", "/opt/x/helper", 1);
	p = sibyl_run_helper_path("sibyl-helper", "SIBYL_TEST_HELPER");
	assert_string_equal(p, "/opt/x/helper");
	free(p);
	unsetenv("SIBYL_TEST_HELPER");
	p = sibyl_run_helper_path("sibyl-helper", "SIBYL_TEST_HELPER");
	assert_non_null(strstr(p, "/sibyl-helper"));
	assert_true(p[0] == '/');	/* next to this test program */
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_codes),
		cmocka_unit_test(signals),
		cmocka_unit_test(timeouts),
		cmocka_unit_test(timeout_kills_the_group),
		cmocka_unit_test(start_failures),
		cmocka_unit_test(interrupted_waits),
		cmocka_unit_test(fds_at_fixed_numbers),
		cmocka_unit_test(environment_and_dir),
		cmocka_unit_test(capture_limit),
		cmocka_unit_test(helper_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
