/*
 * Running work in a child process, so a kernel that crashes (a wild
 * pointer kills the whole OpenCL runtime with it) or hangs cannot take
 * sibyl down. The child talks back through JSON lines on a pipe; the
 * parent enforces a timeout from the moment the child says a sample
 * started.
 */
#ifndef SIBYL_OCL_CHILD_H
#define SIBYL_OCL_CHILD_H

#include <jansson.h>
#include <stdbool.h>

enum sibyl_child_status {
	SIBYL_CHILD_OK,		/* exited 0 */
	SIBYL_CHILD_FAILED,	/* exited non-zero (it printed why) */
	SIBYL_CHILD_CRASHED,	/* killed by a signal */
	SIBYL_CHILD_TIMEOUT,	/* killed by us */
};

struct sibyl_child_result {
	enum sibyl_child_status status;
	int code;	/* exit code or signal */
};

/* Each line the child sends (borrowed). Return true to start the
 * timeout for the next line, false to wait without limit. */
typedef bool (*sibyl_child_line_fn)(void *ctx, json_t *msg);

/* Run the program argv[0] with the pipe as its file descriptor 3;
 * timeout_s <= 0 means none. Before its first line the child may take
 * SIBYL_CHILD_SETUP_FACTOR times as long. Returns 0 or -1 when it could
 * not start. */
#define SIBYL_CHILD_SETUP_FACTOR 10
#define SIBYL_CHILD_FD 3
int sibyl_child_run(char *const argv[], sibyl_child_line_fn line, void *line_ctx,
		    double timeout_s, struct sibyl_child_result *res);

#endif
