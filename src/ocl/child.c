/* fork + exec, a pipe of JSON lines, poll with a deadline, waitpid. */
#define _GNU_SOURCE
#include "ocl/child.h"
#include "core/clock.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct linebuf {
	char *buf;
	size_t len, cap;
};

/* Hand every complete line to `line`; *armed becomes its last verdict.
 * Returns whether there was a line. */
static bool split_lines(struct linebuf *b, sibyl_child_line_fn line, void *ctx, bool *armed)
{
	char *start = b->buf, *nl;
	bool any = false;

	while ((nl = memchr(start, '\n', b->len - (size_t)(start - b->buf)))) {
		*nl = '\0';
		json_t *msg = json_loads(start, 0, NULL);

		if (msg) {
			*armed = line(ctx, msg);
			json_decref(msg);
		}
		start = nl + 1;
		any = true;
	}
	b->len -= (size_t)(start - b->buf);
	memmove(b->buf, start, b->len);
	return any;
}

static void child_main(char *const argv[], int fds[2])
{
	if (fds[1] == SIBYL_CHILD_FD) {
		fcntl(fds[1], F_SETFD, 0);	/* keep it across exec */
	} else {
		dup2(fds[1], SIBYL_CHILD_FD);	/* dup2 clears close-on-exec */
	}
	execv(argv[0], argv);
	fprintf(stderr, "sibyl: kernel: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(126);
}

/* Read until EOF or the deadline; true when the child timed out. */
static bool pump(int fd, sibyl_child_line_fn line, void *ctx, double timeout_s)
{
	struct linebuf b = { malloc(65536), 0, 65536 };
	/* Until its first line the child builds the program: a hang there
	 * (a compiler loop) gets a generous limit of its own. */
	bool armed = timeout_s > 0;
	uint64_t deadline = sibyl_mono_ns() + (uint64_t)(SIBYL_CHILD_SETUP_FACTOR * timeout_s * 1e9);

	if (!b.buf)
		abort();
	for (;;) {
		int wait_ms = -1;

		if (armed && timeout_s > 0) {
			uint64_t now = sibyl_mono_ns();

			if (now >= deadline)
				break;
			wait_ms = (int)((deadline - now) / 1000000) + 1;
		}
		struct pollfd p = { fd, POLLIN, 0 };
		int n = poll(&p, 1, wait_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			continue;	/* the deadline check above ends the loop */
		if (b.cap - b.len < 4096 && !(b.buf = realloc(b.buf, b.cap *= 2)))
			abort();
		ssize_t got = read(fd, b.buf + b.len, b.cap - b.len - 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			free(b.buf);
			return false;
		}
		b.len += (size_t)got;
		if (split_lines(&b, line, ctx, &armed) && armed)
			deadline = sibyl_mono_ns() + (uint64_t)(timeout_s * 1e9);
	}
	free(b.buf);
	return true;
}

int sibyl_child_run(char *const argv[], sibyl_child_line_fn line, void *line_ctx,
		    double timeout_s, struct sibyl_child_result *res)
{
	int fds[2], status;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return sibyl_err_errno("kernel: pipe");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();

	if (pid < 0)
		return sibyl_err_errno("kernel: fork");
	if (pid == 0)
		child_main(argv, fds);
	close(fds[1]);
	bool timed_out = pump(fds[0], line, line_ctx, timeout_s);

	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return sibyl_err_errno("kernel: waitpid");
	if (timed_out)
		*res = (struct sibyl_child_result){ SIBYL_CHILD_TIMEOUT, SIGKILL };
	else if (WIFSIGNALED(status))
		*res = (struct sibyl_child_result){ SIBYL_CHILD_CRASHED, WTERMSIG(status) };
	else if (WEXITSTATUS(status))
		*res = (struct sibyl_child_result){ SIBYL_CHILD_FAILED, WEXITSTATUS(status) };
	else
		*res = (struct sibyl_child_result){ SIBYL_CHILD_OK, 0 };
	return 0;
}
