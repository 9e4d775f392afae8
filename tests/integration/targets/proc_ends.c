/*
 * Process images that end every way (tests/integration/proc_ends.sh):
 * each child makes one wrapped call, then
 *   _exit(5)                 after fork
 *   is killed by SIGKILL     by its parent
 *   abort()                  SIGABRT (no core file: RLIMIT_CORE 0)
 *   exec's itself            which then exits 3
 *   exits 6                  started by vfork + exec
 *   exits 4                  started by posix_spawn
 * and the parent prints each child's wait status, so a traced run can be
 * compared with an untraced one.
 */
#define _GNU_SOURCE
#include "testlib.h"

#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void reap(const char *what, pid_t pid)
{
	int status = 0;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror(what);
		exit(1);
	}
	printf("%s: status 0x%x\n", what, status);
}

/* A child that ends by `how`; the parent reaps it. */
static void child(const char *what, void (*how)(void))
{
	int ready[2];
	char c;

	if (pipe(ready) < 0)
		exit(1);
	pid_t pid = fork();

	if (pid == 0) {
		testlib_work(1);
		close(ready[0]);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		how();
		_exit(1);
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) == 1 && !strcmp(what, "sigkill"))
		kill(pid, SIGKILL);
	close(ready[0]);
	reap(what, pid);
}

static void by_exit5(void) { _exit(5); }
static void by_pause(void) { for (;;) pause(); }

static void by_abort(void)
{
	struct rlimit none = { 0, 0 };

	setrlimit(RLIMIT_CORE, &none);
	abort();
}

static void by_exec(void)
{
	execl("/proc/self/exe", "proc_ends", "exit", "3", (char *)NULL);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "exit")) {
		testlib_work(2);
		return atoi(argv[2]);
	}
	testlib_work(0);
	child("exit5", by_exit5);
	child("sigkill", by_pause);
	child("abort", by_abort);
	child("exec", by_exec);

	pid_t pid = vfork();

	if (pid == 0) {
		execl("/proc/self/exe", "proc_ends", "exit", "6", (char *)NULL);
		_exit(127);
	}
	reap("vfork", pid);
	char *spawn_argv[] = { "proc_ends", "exit", "4", NULL };

	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, spawn_argv, environ) != 0)
		pid = -1;
	reap("posix_spawn", pid);
	return 0;
}
