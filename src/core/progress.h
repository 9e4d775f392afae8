/*
 * One progress line for long work, on a terminal only (a pipe or a log
 * file gets nothing): "sibyl: WHAT: DETAIL  42%  12.5 UNIT/s  ETA 0:15",
 * redrawn in place at most ten times a second (and at done == total),
 * and erased when done.
 */
#ifndef SIBYL_CORE_PROGRESS_H
#define SIBYL_CORE_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct sibyl_progress {
	FILE *out;
	bool on;		/* out is a terminal */
	const char *what, *unit;
	double start, last;	/* sibyl_seconds() */
	bool drawn;
};

/* what: "plan insertion-sort"; unit: what `done` counts ("samples"),
 * or NULL for no rate. */
void sibyl_progress_start(struct sibyl_progress *p, FILE *out, const char *what,
			  const char *unit);
/* done of total (total <= 0: unknown, no percentage or ETA), and a
 * detail; cheap to call often. */
void sibyl_progress_update(struct sibyl_progress *p, double done, double total,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A new step of work without a count ("bandwidth h2d"): drawn at once. */
void sibyl_progress_phase(struct sibyl_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Erase the line. */
void sibyl_progress_done(struct sibyl_progress *p);

#endif
