/*
 * Samples of one configuration run in a child, sibyl-kernel-run
 * (core/helper.h), so a kernel that crashes (a wild pointer kills the
 * whole OpenCL runtime with it) or hangs cannot take sibyl down: a crash
 * or a timeout is an error notice (core/log.h) with the sample's seed
 * ("kernel K crashed (signal N) with seed S") and, in batch mode, the
 * remaining samples go on in a fresh child.
 *
 * Two limits: the device's compiles (clBuildProgram, and the code
 * generation PoCL does at the first launch of a size, before the
 * command is CL_RUNNING) get build_timeout_s; the kernel's run, from
 * CL_RUNNING on, timeout_s.  A killed compile is never cached, so a
 * kernel-run limit that also covered it would time out forever.  A
 * runtime that never reports CL_RUNNING gets build_timeout_s throughout.
 */
#ifndef SIBYL_OCL_GUARD_H
#define SIBYL_OCL_GUARD_H

#include "ocl/driver/run.h"

/* How a run ended (sibyl kernel's exit status is SIBYL_KEXIT_*). */
enum sibyl_kstatus {
	SIBYL_KS_OK,
	SIBYL_KS_ERROR,		/* anything else (no device, out of memory) */
	SIBYL_KS_COMPILE,	/* clang-14 or the device's compiler refused it */
	SIBYL_KS_UNSUPPORTED,	/* an argument or a device feature sibyl lacks */
	SIBYL_KS_CRASH,		/* the runner died of a signal */
	SIBYL_KS_TIMEOUT,	/* a limit passed (stage says which) */
};

/* What a failed run leaves for the report: stage is "compile" (clang-14),
 * "build" (clBuildProgram), "jit" (the first launch's compile), "run"
 * or "setup"; the sample's seed and sizes when one had started. */
struct sibyl_kfailure {
	enum sibyl_kstatus status;
	const char *stage;
	int signal;
	bool sampled;		/* a sample started: seed, gsize, local_elements */
	uint64_t seed, gsize, local_elements;
	char message[512];	/* a sample's crash or timeout, as noticed */
};

struct sibyl_guard {
	double timeout_s;	/* a kernel's run; <= 0: none */
	double build_timeout_s;	/* the device's compiles; <= 0: none */
	bool keep_going;	/* skip a crashed sample and continue */
	void (*on_device)(void *ctx, json_t *msg);	/* borrowed messages */
	void (*on_sample)(void *ctx, json_t *msg);
	void *ctx;
	struct sibyl_kfailure failure;	/* out: the last failure */
	char *chatter;			/* out: the runner's stderr (malloc'd or NULL) */
};

/* Run every sample of every global size of cfg. Returns the samples
 * that crashed or timed out, or -1 with the line in err when a runner
 * failed (a build error: the child's own line); cfg->gsize then says
 * where. */
int sibyl_run_guarded(struct sibyl_run_cfg *cfg, struct sibyl_guard *g, char *err,
		      size_t errlen);

/* Whether the device cfg names takes SPIR (cl_khr_spir), asked of a
 * runner; 0, or -1 with err. */
int sibyl_device_takes_spir(const struct sibyl_run_cfg *cfg, double build_timeout_s, bool *spir,
			    char *err, size_t errlen);

/* "ok", "error", "compile-error", "unsupported", "crash", "timeout". */
const char *sibyl_kstatus_name(enum sibyl_kstatus s);

/* A failure as --json reports it (failure.c): {"file", "kernel",
 * "status", "stage", "message", and when a sample had started "seed",
 * "gsize", "args" (regenerated: the very values the sample got)}.  cfg
 * and f may be NULL (a failure before anything ran). */
json_t *sibyl_kfailure_json(const char *file, const char *kernel,
			    const struct sibyl_run_cfg *cfg, const struct sibyl_kfailure *f,
			    enum sibyl_kstatus status, const char *stage, const char *message);
/* The arguments the failed sample got (NULL when none had started). */
json_t *sibyl_kfailure_args(const struct sibyl_run_cfg *cfg, const struct sibyl_kfailure *f);

#endif
