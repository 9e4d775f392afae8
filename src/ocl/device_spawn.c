/*
 * `sibyl device` measures in a child, sibyl-device-run: sibyl links
 * LLVM 14 (IR instrumentation) and an OpenCL runtime such as PoCL links
 * its own LLVM, which cannot share a process with it (PoCL's LLVM calls
 * bind to LLVM 14's symbols and crash in clBuildProgram).  The child
 * prints the device profile as JSON on a pipe; we read it back through
 * the same checked parser any other reader uses.
 */
#define _GNU_SOURCE
#include "ocl/device.h"
#include "core/fs.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* sibyl-device-run next to the running sibyl, or $SIBYL_DEVICE_RUNNER. */
static char *runner_path(void)
{
	const char *env = getenv("SIBYL_DEVICE_RUNNER");
	char *dir, *p;

	if (env && *env)
		return strdup(env);
	dir = sibyl_self_dir();
	if (!dir)
		return strdup("sibyl-device-run");
	p = sibyl_path_join(dir, "sibyl-device-run");
	free(dir);
	return p;
}

/* Everything until EOF, NUL-terminated. */
static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		if (cap - n < 4096) {
			char *bigger = realloc(buf, cap *= 2);

			if (!bigger) {
				free(buf);
				break;
			}
			buf = bigger;
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return sibyl_err_errno("device: reading the measuring process");
		}
		if (got == 0) {
			buf[n] = '\0';
			*out = buf;
			*len = n;
			return 0;
		}
		n += (size_t)got;
	}
	return sibyl_err("device: out of memory");
}

/* Run the child with `args` (argv[0] filled in here); its stdout goes to
 * *out (malloc'd, NUL-terminated) when out is not NULL. */
static int run_child(const char **args, char **out, size_t *len)
{
	char *path = runner_path();
	int fds[2] = { -1, -1 }, status;
	pid_t pid;

	args[0] = path;
	if (out && pipe2(fds, O_CLOEXEC)) {
		free(path);
		return sibyl_err_errno("device: pipe");
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (out)
			dup2(fds[1], STDOUT_FILENO);
		execvp(path, (char *const *)args);
		fprintf(stderr, "sibyl: device: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (out)
		close(fds[1]);
	if (pid < 0) {
		if (out)
			close(fds[0]);
		free(path);
		return sibyl_err_errno("device: fork");
	}
	int r = out ? read_all(fds[0], out, len) : 0;

	if (out)
		close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		r = sibyl_err("device: %s crashed (signal %d)", path, WTERMSIG(status));
	else if (WEXITSTATUS(status) == SIBYL_DEVICE_RUN_FAILED || WEXITSTATUS(status) == 127)
		r = -1;		/* the child printed its one-line error */
	else if (WEXITSTATUS(status))
		r = sibyl_err("device: %s exited with status %d", path, WEXITSTATUS(status));
	free(path);
	return r;
}

int sibyl_device_measure_child(const struct sibyl_device_run *run,
			       struct sibyl_device_profile *p)
{
	char repeat[32], max_bytes[32], err[512];
	const char *args[] = { NULL, "measure", run->platform ? run->platform : "",
			       run->device ? run->device : "", repeat, max_bytes,
			       run->quick ? "1" : "0", run->progress ? "1" : "0",
			       run->sibyl_version, NULL };
	char *text = NULL;
	size_t len = 0;

	snprintf(repeat, sizeof(repeat), "%u", run->repeat);
	snprintf(max_bytes, sizeof(max_bytes), "%llu", (unsigned long long)run->max_bytes);
	if (run_child(args, &text, &len)) {
		free(text);
		return -1;
	}
	int r = sibyl_device_profile_parse(text, len, p, err, sizeof(err));

	free(text);
	return r ? sibyl_err("device: the measuring process gave a bad profile: %s", err) : 0;
}

int sibyl_device_list_child(bool json)
{
	const char *args[] = { NULL, "list", json ? "json" : "text", NULL };

	return run_child(args, NULL, NULL);
}
