/* A helper program and sibyl (core/helper.h). */
#define _GNU_SOURCE
#include "core/helper.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/message.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const char *const kinds[] = {
	[SIBYL_NOTICE_ERROR] = "error",
	[SIBYL_NOTICE_WARNING] = "warning",
	[SIBYL_NOTICE_NOTE] = "note",
	[SIBYL_NOTICE_INFO] = "info",
	[SIBYL_NOTICE_DIAG] = "diagnostic",
};

static void send_notice(enum sibyl_notice kind, const char *text, void *ctx)
{
	json_t *msg = json_pack("{s:s, s:s, s:s}", "event", "notice", "kind", kinds[kind],
				"text", text);

	sibyl_msg_send((int)(intptr_t)ctx, msg);	/* a parent that is gone reads nothing */
	json_decref(msg);
}

void sibyl_helper_report_to(int fd)
{
	sibyl_set_notice_handler(send_notice, (void *)(intptr_t)fd);
}

void sibyl_helper_error(int fd, const char *text)
{
	json_t *msg = json_pack("{s:s, s:s}", "event", "error", "text", text);

	sibyl_msg_send(fd, msg);
	json_decref(msg);
}

/* A notice or the error: handled here (true), else the caller's. */
static bool relay(json_t *msg, char *err, size_t errlen)
{
	const char *ev = json_string_value(json_object_get(msg, "event"));
	const char *text = json_string_value(json_object_get(msg, "text"));
	const char *kind = json_string_value(json_object_get(msg, "kind"));

	if (!ev || !text || (strcmp(ev, "error") && strcmp(ev, "notice")))
		return false;
	if (!strcmp(ev, "error")) {
		sibyl_seterr(err, errlen, "%s", text);
		return true;
	}
	for (size_t k = 0; kind && k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k]))
			sibyl_notice((enum sibyl_notice)k, "%s", text);
	return true;
}

static uint64_t after(double seconds)
{
	return sibyl_mono_ns() + (uint64_t)(seconds * 1e9);
}

/* Read until EOF or the deadline; true when the helper timed out. */
static bool pump(int fd, const struct sibyl_helper *h, char *err, size_t errlen)
{
	struct sibyl_msg_reader r;
	bool armed = h->first_timeout_s > 0;
	uint64_t deadline = armed ? after(h->first_timeout_s) : 0;
	enum sibyl_msg_got got;
	json_t *msg;

	sibyl_msg_reader_init(&r, fd);
	while ((got = sibyl_msg_next(&r, armed ? deadline : 0, -1, &msg)) == SIBYL_MSG_ONE) {
		if (!relay(msg, err, errlen)) {
			double limit = h->line ? h->line(h->ctx, msg) : 0;

			if ((armed = limit > 0))
				deadline = after(limit);
		}
		json_decref(msg);
	}
	sibyl_msg_reader_free(&r);
	return got == SIBYL_MSG_TIMEOUT;
}

int sibyl_helper_run(const struct sibyl_helper *h, struct sibyl_run_status *st, char *err,
		     size_t errlen)
{
	int fds[2];
	struct sibyl_child child;

	sibyl_seterr(err, errlen, "%s", "");
	if (pipe2(fds, O_CLOEXEC) < 0)
		return sibyl_seterr_errno(err, errlen, "pipe");
	struct sibyl_run_fd report[] = { { fds[1], SIBYL_RUN_REPORT_FD },
					 { h->stderr_fd, STDERR_FILENO } };
	struct sibyl_run_spec spec = { .argv = h->argv, .fds = report,
				       .nfds = h->stderr_fd > 2 ? 2 : 1, .die_with_parent = true };
	int r = sibyl_run_start(&spec, &child, st);

	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		return sibyl_seterr(err, errlen, "cannot run %s: %s", h->argv[0],
				    strerror(st->code));
	}
	bool timed_out = pump(fds[0], h, err, errlen);

	close(fds[0]);
	if (timed_out)
		sibyl_run_kill(&child, st);
	else
		sibyl_run_wait(&child, 0, st);
	return 0;
}

int sibyl_helper_failed(const char *what, const struct sibyl_run_status *st, char *err,
			size_t errlen)
{
	char how[128];

	if (st->outcome == SIBYL_RUN_OK)
		return 0;
	if (!err || !*err)
		sibyl_seterr(err, errlen, "%s %s", what, sibyl_run_describe(st, how, sizeof(how)));
	return -1;
}
