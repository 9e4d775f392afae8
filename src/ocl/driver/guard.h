/*
 * Samples of one configuration run in a child (child.h): a crash or a
 * timeout is reported with the sample's seed ("kernel K crashed (signal
 * N) with seed S") and, in batch mode, the remaining samples go on in a
 * fresh child.
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

/* Run every sample of every global size of cfg. Returns the samples
 * that crashed or timed out, or -1 when a runner failed (a build error,
 * printed by the child); cfg->gsize then says where. */
int sibyl_run_guarded(struct sibyl_run_cfg *cfg, const struct sibyl_guard *g);

#endif
