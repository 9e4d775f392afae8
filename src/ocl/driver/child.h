/*
 * Running work in a child process, so a kernel that crashes (a wild
 * pointer kills the whole OpenCL runtime with it) or hangs cannot take
 * sibyl down. The child reports as JSON lines on its descriptor
 * SIBYL_RUN_REPORT_FD (core/run.h); the parent enforces a timeout from
 * the moment the child says a sample started.
 */
#ifndef SIBYL_OCL_CHILD_H
#define SIBYL_OCL_CHILD_H

#include "core/run.h"

#include <jansson.h>
#include <stdbool.h>

/* Each line the child sends (borrowed). Return true to start the
 * timeout for the next line, false to wait without limit. */
typedef bool (*sibyl_child_line_fn)(void *ctx, json_t *msg);

/* Run the program argv[0]; timeout_s <= 0 means none. Before its first
 * line the child may take SIBYL_CHILD_SETUP_FACTOR times as long.
 * Returns 0 with how it ended in *st, or -1 (printed) when it could not
 * start. */
#define SIBYL_CHILD_SETUP_FACTOR 10
int sibyl_child_run(char *const argv[], sibyl_child_line_fn line, void *line_ctx,
		    double timeout_s, struct sibyl_run_status *st);

#endif
