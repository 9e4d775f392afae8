/*
 * meta.json's writer (docs/trace-meta.md): `sibyl trace` writes it when
 * the command starts and rewrites it, atomically, when the command ends.
 * Its reader is meta.c; both follow SIBYL_TRACE_VERSION.  A new field is
 * a member here, a writer in meta_write.c's table, its reading in meta.c
 * and its line in docs/trace-meta.md.
 */
#ifndef SIBYL_TRACE_META_WRITE_H
#define SIBYL_TRACE_META_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/clock.h"
#include "core/run.h"
#include "core/options.h"
#include "trace/interposition.h"

/* What one `sibyl trace` run knows about itself. */
struct sibyl_trace_run {
	char *const *command;	/* NULL-terminated */
	const struct sibyl_strlist *wrappers;	/* absolute paths */
	struct sibyl_clock_cal clock;
	pid_t root_pid;
	uint64_t start_ns;
	bool finished;		/* the command ended: the fields below are valid */
	uint64_t end_ns;
	struct sibyl_run_status status;	/* crashed (a signal) or an exit code */
	bool complete;		/* every record saved, no thread lost */
	struct sibyl_interposition_costs costs;	/* measured after the command */
};

/* Write <dir>/meta.json atomically; returns 0 or -1 with errno. */
int sibyl_trace_meta_write(const char *dir, const struct sibyl_trace_run *run);

#endif
