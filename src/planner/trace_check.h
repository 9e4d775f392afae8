/*
 * A profile against the calls a program made: each traced call of one
 * function predicted at its work metric and compared with its traced
 * time, without measuring anything.  This is what a prediction of that
 * program (sibyl predict) will rest on, so it is the check that matters
 * for a plan guided by the same trace (guided.h); it works for any
 * profile of the function's implementation.
 */
#ifndef SIBYL_PLANNER_TRACE_CHECK_H
#define SIBYL_PLANNER_TRACE_CHECK_H

#include "model/profile.h"

#include <stddef.h>

struct sibyl_trace_check {
	size_t calls;
	double traced_s, predicted_s;  /* all calls' traced and predicted time */
	double total_error_pct;        /* 100 (predicted - traced) / traced */
	double median_error_pct;       /* per call, 100 |predicted - traced| / traced */
	double mean_error_pct;
	/* Calls the profile did not measure (sibyl_profile_cover): between
	 * two sampled metrics of a guided plan, or outside its points. */
	size_t between, below, above;
	/* Each process's first call is predicted with the profile's first-call
	 * excess added (sibyl_profile_first_call_excess; 0 when it records
	 * none), as sibyl predict adds it: that call pays the library's lazy
	 * set-up, which warm runs do not.  first_calls of them. */
	size_t first_calls;
	double first_call_s;
	/* Each other call that is its process's first at its work metric is
	 * predicted with the profile's first call there (stats.one_time.
	 * first_calls, sibyl_profile_first_call_at): first_at_calls of them,
	 * first_at_s added in all. */
	size_t first_at_calls;
	double first_at_s;
};

/* 0, or -1 with one line in err (the trace, no call of function, a work
 * metric the trace did not record for it). */
int sibyl_trace_check(const struct sibyl_profile *p, const char *dir, const char *function,
		      struct sibyl_trace_check *c, char *err, size_t errlen);

#endif
