/* meta.json of a trace directory (docs/trace-meta.md), written by `sibyl trace`. */
#ifndef SIBYL_CLI_TRACE_META_H
#define SIBYL_CLI_TRACE_META_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/clock.h"
#include "core/options.h"

struct trace_run {
	char *const *command;	/* NULL-terminated */
	const struct sibyl_strlist *wrappers;	/* absolute paths */
	struct sibyl_clock_cal clock;
	pid_t root_pid;
	uint64_t start_ns;
	bool finished;		/* the fields below are valid */
	uint64_t end_ns;
	int status;		/* waitpid status */
	bool complete;		/* every record saved, no thread lost */
};

/* Write <dir>/meta.json atomically; returns 0 or -1 with errno. */
int trace_meta_write(const char *dir, const struct trace_run *run);

#endif
