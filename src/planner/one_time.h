/*
 * What swapping an implementation in costs a program once, measured in
 * sibyl-plan-one-time (one_time_main.c): a fresh process that links
 * only the C library, as a small program does, loads the adapter,
 * runs init and a first call, and exits.
 */
#ifndef SIBYL_PLANNER_ONE_TIME_H
#define SIBYL_PLANNER_ONE_TIME_H

#include "planner/worker.h"

/* One fresh probe of adapter `name` in the shared object `source`, its
 * first call at `metric`: its init, first run and the same run warm into
 * *run, and the seconds from the end of its requests to its exit into
 * *exit_s (NAN when that cannot be timed precisely).  With source NULL,
 * a bare probe that loads nothing: *exit_s alone.  timeout bounds the
 * measurement, 2 s the exit.  0, or -1 with err set. */
int sibyl_one_time_probe(const char *source, const char *name,
			 const struct sibyl_adapter_config *config, uint64_t metric,
			 double timeout, struct sibyl_one_time_run *run, double *exit_s,
			 char *err, size_t errlen);

#endif
