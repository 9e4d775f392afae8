/* Starting and stopping the planner's helper programs (helper.h). */
#define _GNU_SOURCE
#include "planner/helper.h"
#include "core/clock.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

int sibyl_helper_start(struct sibyl_helper *h, char *const *argv, const struct sibyl_run_fd *extra,
		       char *err, size_t errlen)
{
	int req[2], rep[2];
	struct sibyl_run_status st;

	*h = (struct sibyl_helper){ .child = { .pid = -1, .pidfd = -1 }, .to = -1,
				    .from = { .fd = -1 } };
	if (pipe2(req, O_CLOEXEC))
		return sibyl_seterr(err, errlen, "pipe: %s", strerror(errno));
	if (pipe2(rep, O_CLOEXEC)) {
		close(req[0]);
		close(req[1]);
		return sibyl_seterr(err, errlen, "pipe: %s", strerror(errno));
	}
	struct sibyl_run_fd fds[] = { { req[0], SIBYL_RUN_REQUEST_FD },
				      { rep[1], SIBYL_RUN_REPORT_FD }, { -1, -1 } };
	struct sibyl_run_spec spec = { .argv = argv, .fds = fds, .nfds = 2 };

	if (extra)
		fds[spec.nfds++] = *extra;
	int r = sibyl_run_start(&spec, &h->child, &st);

	close(req[0]);
	close(rep[1]);
	h->to = req[1];
	sibyl_msg_reader_init(&h->from, rep[0]);
	if (r < 0)
		sibyl_seterr(err, errlen, "cannot run %s: %s", argv[0], strerror(st.code));
	return r;
}

double sibyl_helper_stop(struct sibyl_helper *h)
{
	struct sibyl_run_status st = { .outcome = SIBYL_RUN_NOT_STARTED };
	double start = sibyl_seconds();
	bool precise = h->child.pidfd >= 0;

	if (h->to >= 0)
		close(h->to);  /* end of requests */
	h->to = -1;
	/* Give it a moment, then insist. */
	sibyl_run_wait(&h->child, sibyl_mono_ns() + 2000000000ull, &st);
	double took = st.outcome == SIBYL_RUN_OK && precise ? sibyl_seconds() - start : NAN;

	if (h->from.fd >= 0)
		close(h->from.fd);
	sibyl_msg_reader_free(&h->from);
	return took;
}
