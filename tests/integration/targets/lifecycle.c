/*
 * A target program for the runtime's lifecycle tests: each mode makes a
 * known number of intercepted calls under threads, fork, exec, signals,
 * recursion, abort or a crash, and prints what it did so the test can
 * compare the program's output with and without tracing.
 */
#define _GNU_SOURCE
#include "testlib.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What calls() calls: testlib_touch in mode fork-touch. */
static int (*work)(int) = testlib_work;

static long calls(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += work(i);
	return s;
}

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int ready, go;

/* Every thread makes its first call (which sets its buffer up) before
 * any thread goes on: the buffers of all threads exist at once. */
static void *thread_main(void *arg)
{
	int n = (int)(long)arg;
	long s = n > 0 ? testlib_work(0) : 0;

	pthread_mutex_lock(&gate_lock);
	ready++;
	pthread_cond_broadcast(&gate_cond);
	while (!go)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	return (void *)(s + calls(n - 1));
}

static int run_threads(int nthreads, int n)
{
	pthread_t t[16];
	int started = 0;

	if (nthreads < 1 || nthreads > 16)
		nthreads = 4;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[started], NULL, thread_main, (void *)(long)n) == 0)
			started++;
	pthread_mutex_lock(&gate_lock);
	while (ready < started)
		pthread_cond_wait(&gate_cond, &gate_lock);
	go = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	printf("threads %d x %d\n", started, n);
	return started == nthreads ? 0 : 1;
}

/* Threads started while every descriptor is taken: the runtime cannot
 * open their buffers, so it can only count their calls as lost. */
static int run_nofd(int nthreads, int n)
{
	int fds = 0;

	while (dup(0) >= 0)
		fds++;
	int r = run_threads(nthreads, n);

	for (int fd = 3; fd < 3 + fds; fd++)
		close(fd);
	return r;
}

static int run_fork(int n)
{
	calls(n);
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		calls(2 * n);
		printf("child done\n");
		exit(0);
	}
	int status;

	waitpid(pid, &status, 0);
	calls(n);
	printf("parent done, child status %d\n", WEXITSTATUS(status));
	return 0;
}

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	(void)sig;
	testlib_work(42);	/* an intercepted call inside a handler */
	handled++;
}

static int run_signals(int n)
{
	signal(SIGUSR1, on_signal);
	for (int i = 0; i < n; i++) {
		testlib_work(i);
		if (i % 10 == 0)
			raise(SIGUSR1);
	}
	printf("handled %d signals\n", (int)handled);
	return 0;
}

/* Timer signals every 20 us whose handler makes intercepted calls, so
 * they land in the middle of the runtime recording the loop's calls.
 * Prints how many calls were made in all. */
static int run_sigstorm(int n)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct itimerval every = { { 0, 20 }, { 0, 20 } }, off = { 0 };

	/* The first call sets the thread's buffer up; a handler's calls
	 * while that runs pass through uncounted (docs/runtime.md). */
	testlib_work(-1);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	for (int i = 0; i < n; i++)
		testlib_work(i);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("calls %ld\n", (long)n + 1 + handled);
	return 0;
}

/* A grandchild that outlives the command: it makes n calls once the
 * file GO exists (the test creates it after the traced command has
 * returned; at most 60 s) or, without GO, after half a second, then
 * writes how it ended into FILE. */
static void wait_for(const char *go)
{
	if (!go) {
		usleep(500000);
		return;
	}
	for (int i = 0; i < 6000 && access(go, F_OK); i++)
		usleep(10000);
}

static int run_outlive(int n, const char *file, const char *go)
{
	pid_t child = fork();

	if (child != 0)
		return child < 0;
	pid_t grandchild = fork();

	if (grandchild == 0) {
		testlib_work(0);
		wait_for(go);
		calls(n);
		_exit(0);
	}
	int status = 0;

	waitpid(grandchild, &status, 0);
	FILE *f = fopen(file, "w");

	if (f) {
		fprintf(f, "%s %d\n", WIFSIGNALED(status) ? "signal" : "exit",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		fclose(f);
	}
	_exit(0);
}

static int run_errno(void)
{
	errno = 0;
	int r = testlib_fail(ERANGE);

	printf("fail returned %d errno %s\n", r, errno == ERANGE ? "ERANGE" : strerror(errno));
	return errno == ERANGE ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	int n = argc > 2 ? atoi(argv[2]) : 1000;

	setvbuf(stdout, NULL, _IOLBF, 0);
	int k = argc > 3 ? atoi(argv[3]) : 4;

	if (!strcmp(mode, "threads"))
		return run_threads(k, n);
	if (!strcmp(mode, "nofd"))
		return run_nofd(k, n);
	if (!strcmp(mode, "fork"))
		return run_fork(n);
	if (!strcmp(mode, "fork-touch")) {
		work = testlib_touch;
		return run_fork(n);
	}
	if (!strcmp(mode, "exec")) {
		calls(n);
		printf("before exec\n");
		execl("/proc/self/exe", argv[0], "after-exec", argv[2], (char *)NULL);
		return 127;
	}
	if (!strcmp(mode, "after-exec")) {
		calls(n);
		printf("after exec\n");
		return 7;
	}
	if (!strcmp(mode, "signals"))
		return run_signals(n);
	if (!strcmp(mode, "sigstorm"))
		return run_sigstorm(n);
	if (!strcmp(mode, "outlive") && argc > 3)
		return run_outlive(n, argv[3], argc > 4 ? argv[4] : NULL);
	if (!strcmp(mode, "recurse")) {
		printf("depth %ld\n", testlib_recurse(n));
		return 0;
	}
	if (!strcmp(mode, "errno"))
		return run_errno();
	if (!strcmp(mode, "abort")) {
		calls(n);
		printf("aborting\n");
		abort();
	}
	if (!strcmp(mode, "crash")) {
		calls(n);
		printf("crashing\n");
		raise(SIGSEGV);
	}
	if (!strcmp(mode, "kill")) {
		calls(n);
		printf("killed\n");
		kill(getpid(), SIGKILL);
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
