/*
 * Samples of one configuration run in a child, sibyl-kernel-run
 * (core/helper.h), so a kernel that crashes (a wild pointer kills the
 * whole OpenCL runtime with it) or hangs cannot take sibyl down: a crash
 * or a timeout is an error notice (core/log.h) with the sample's seed
 * ("kernel K crashed (signal N) with seed S") and, in batch mode, the
 * remaining samples go on in a fresh child.  The timeout starts when
 * the child says a sample started; before its first line (building the
 * program) it may take SIBYL_GUARD_SETUP_FACTOR times as long.
 */
#ifndef SIBYL_OCL_GUARD_H
#define SIBYL_OCL_GUARD_H

#include "ocl/driver/run.h"

struct sibyl_guard {
	double timeout_s;	/* per sample; <= 0: none */
	bool keep_going;	/* skip a crashed sample and continue */
	void (*on_device)(void *ctx, json_t *msg);	/* borrowed messages */
	void (*on_sample)(void *ctx, json_t *msg);
	void *ctx;
};

#define SIBYL_GUARD_SETUP_FACTOR 10

/* Run every sample of every global size of cfg. Returns the samples
 * that crashed or timed out, or -1 with the line in err when a runner
 * failed (a build error: the child's own line); cfg->gsize then says
 * where. */
int sibyl_run_guarded(struct sibyl_run_cfg *cfg, const struct sibyl_guard *g, char *err,
		      size_t errlen);

#endif
