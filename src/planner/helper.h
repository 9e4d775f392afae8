/*
 * A helper program of the planner's (sibyl-plan-worker, sibyl-plan-one-
 * time), started through the runner with its requests and replies at
 * the descriptors core/run.h names.
 */
#ifndef SIBYL_PLANNER_HELPER_H
#define SIBYL_PLANNER_HELPER_H

#include "core/message.h"
#include "core/run.h"

struct sibyl_helper {
	struct sibyl_child child;	/* pid -1 once gone */
	int to;				/* requests; -1 once closed */
	struct sibyl_msg_reader from;	/* replies */
};

/* Start argv (argv[0]: a path), with one more of our descriptors at a
 * number of its own when extra is not NULL; 0, or -1 with err set.  h
 * is stoppable either way. */
int sibyl_helper_start(struct sibyl_helper *h, char *const *argv, const struct sibyl_run_fd *extra,
		       char *err, size_t errlen);
/* Close its requests (the end it waits for), wait up to 2 s for its
 * exit, then kill it, and free h's descriptors.  The seconds its exit
 * took after the end of requests; NAN unless it exited 0 by itself and
 * was watched through a pidfd (without one, the wait looks every 10 ms:
 * too coarse for a cost of some 0.4 ms). */
double sibyl_helper_stop(struct sibyl_helper *h);

#endif
