/* A helper program started through the runner, its JSON lines read
 * with a deadline that each line may re-arm. */
#define _GNU_SOURCE
#include "ocl/driver/child.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/message.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static uint64_t after(double seconds)
{
	return sibyl_mono_ns() + (uint64_t)(seconds * 1e9);
}

/* Read until EOF or the deadline; true when the child timed out. */
static bool pump(int fd, sibyl_child_line_fn line, void *ctx, double timeout_s)
{
	struct sibyl_msg_reader r;
	/* Until its first line the child builds the program: a hang there
	 * (a compiler loop) gets a generous limit of its own. */
	bool armed = timeout_s > 0;
	uint64_t deadline = armed ? after(SIBYL_CHILD_SETUP_FACTOR * timeout_s) : 0;
	enum sibyl_msg_got got;
	json_t *msg;

	sibyl_msg_reader_init(&r, fd);
	while ((got = sibyl_msg_next(&r, armed ? deadline : 0, -1, &msg)) == SIBYL_MSG_ONE) {
		armed = line(ctx, msg) && timeout_s > 0;
		json_decref(msg);
		if (armed)
			deadline = after(timeout_s);
	}
	sibyl_msg_reader_free(&r);
	return got == SIBYL_MSG_TIMEOUT;
}

int sibyl_child_run(char *const argv[], sibyl_child_line_fn line, void *line_ctx,
		    double timeout_s, struct sibyl_run_status *st)
{
	int fds[2];
	struct sibyl_child child;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return sibyl_err_errno("kernel: pipe");
	struct sibyl_run_fd report = { fds[1], SIBYL_RUN_REPORT_FD };
	struct sibyl_run_spec spec = { .argv = argv, .fds = &report, .nfds = 1 };
	int r = sibyl_run_start(&spec, &child, st);

	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		return sibyl_err("kernel: cannot run %s: %s", argv[0], strerror(st->code));
	}
	bool timed_out = pump(fds[0], line, line_ctx, timeout_s);

	close(fds[0]);
	if (timed_out)
		sibyl_run_kill(&child, st);
	else
		sibyl_run_wait(&child, 0, st);
	return 0;
}
