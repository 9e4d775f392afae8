/*
 * Diagnosing what a line cannot fit, so that planning stops and says
 * why instead of burning its budget.  Two shapes of failure are seen in
 * the sample matrix:
 *
 *  - the work metric does not order time: repeats at one work metric
 *    agree, yet near neighbours differ far beyond that noise, both up
 *    and down (FFTW: a prime size 10-20 times slower than the sizes
 *    beside it);
 *  - repeats at one work metric disagree far beyond --sample-error
 *    (CLBlast on PoCL: 44 or 140 us at one matrix shape, as a worker
 *    thread wakes up or not): no segment's interval ever narrows.
 *
 * A jump seen between metrics measured once is verified first: the
 * planner measures one of them again (`verify`).
 */
#ifndef SIBYL_PLANNER_DIAGNOSE_H
#define SIBYL_PLANNER_DIAGNOSE_H

#include "planner/matrix.h"

enum sibyl_verdict {
	SIBYL_VERDICT_NONE,
	SIBYL_VERDICT_METRIC,      /* the metric does not predict time */
	SIBYL_VERDICT_SCATTER,     /* repeats at one metric disagree */
};

struct sibyl_diagnosis {
	enum sibyl_verdict verdict;
	double verify;             /* a work metric to measure again, or -1 */
	char why[400];             /* the evidence, for the verdicts */
};

void sibyl_diagnose(const struct sibyl_matrix *m, double sample_error,
		    struct sibyl_diagnosis *d);

#endif
