/*
 * Running a kernel on the OpenCL device, sample after sample. This runs
 * in sibyl-kernel-run, a separate executable started by guard.c: PoCL
 * embeds its own LLVM, which must never share a process with the LLVM 14
 * sibyl links for bitcode work. It reports through JSON lines on a
 * file descriptor:
 *   {"event":"device", "platform", "device", "cache"}
 *   {"event":"start", "sample", "seed", "gsize", "local_elements", "warmup"}
 *   {"event":"running", "sample", "gsize"}   (CL_RUNNING: the device's
 *                                             compile is over, the run starts)
 *   {"event":"sample", "sample", "seed", "gsize", "lsize", "host_ns",
 *    "device_ns", "queue_ns", "submit_ns", "transfer_ns",
 *    ["counters": file with the raw counters (-i)], ["args", "after"],
 *    [--check: "input", "before", "after", "again" digests (check.h)]}
 *   (the guard, parent side, replaces "counters" by "instcounts", or for
 *   --check's probes adds "barriers", or "races" and "race_log")
 * and, as every helper (core/helper.h), {"event":"notice", ...} for a
 * warning and {"event":"error","text"} before it exits non-zero.
 * A SPIR program is either the instrumented bitcode (-i: one more,
 * counters, argument) or the plain bitcode (--spir, spir_plain: the
 * kernel's own arguments only, nothing counted); a counted source
 * (--source-counters) takes the counters argument too.
 * The child exits 1 after an error, SIBYL_KRUN_EXIT_BUILD when the
 * device's compiler refused the program (its full log sent before as a
 * diagnostic notice), SIBYL_KRUN_EXIT_UNSUPPORTED when the device lacks
 * what the run needs.
 */
#ifndef SIBYL_OCL_RUN_H
#define SIBYL_OCL_RUN_H

#include "ocl/instrument/instrument.h"
#include "ocl/driver/kernel_info.h"

#include <stdbool.h>
#include <stdint.h>

#define SIBYL_KRUN_EXIT_BUILD 3
#define SIBYL_KRUN_EXIT_UNSUPPORTED 4

struct sibyl_run_cfg {
	const char *platform, *device;	/* clutil.h choice */
	const struct sibyl_kernel *kernel;
	const char *file;		/* the .cl source (portable path) */
	const char *build_options;	/* for clBuildProgram (-D, -I, user's) */
	const char *user_options;	/* --build-options alone (SPIR path) */
	const char *spir_path;		/* SPIR bitcode (-i, --spir), or NULL: source */
	bool spir_plain;		/* --spir: spir_path is not instrumented */
	bool probe;			/* only say whether the device takes SPIR */
	const char *counted_source;	/* --source-counters: the marked source built
					 * instead of file, counting (source.h) */
	unsigned counter_arg;		/* -i: the counters argument */
	const char *counters_path;	/* -i: counters go to PATH.GSIZE.SAMPLE */
	bool dump_args;
	bool verbose;			/* the device compiler's log also on success */
	bool fence;			/* buffers end at an inaccessible page */
	bool check;			/* --check: each sample twice, digests (check.h) */
	bool barriers;			/* --check's barrier probe (parent side): -i's
					 * copy without barriers, per-item rows; the
					 * guard adds each sample's "barriers" finding */
	bool races;			/* --check's race probe (parent side): inst logs
					 * the __local accesses; the guard adds each
					 * sample's "races" findings */
	uint64_t gsize, lsize, elements, seed;	/* sizes: work-items in all */
	const struct sibyl_argspec *specs;	/* -a (argspec.h), one per argument; NULL: none */
	unsigned dims;			/* > 1: gdim and ldim give the shape (ndrange.h) */
	uint64_t gdim[3], ldim[3];
	uint64_t gsize_to, gsize_step;	/* a sweep gsize, +step, .. to (0: gsize only) */
	size_t *counters_sizes;		/* -i: the counters' bytes per global size */
	long first_sample, samples;	/* of the first gsize; sample i uses seed + i */
	long warmup;			/* unreported launches before the samples */
	const struct sibyl_instrumented *inst;	/* parent side: decodes counters */
};

/* The configuration as the runner reads it, and back (strings borrowed
 * from j; k receives the kernel). */
json_t *sibyl_run_cfg_to_json(const struct sibyl_run_cfg *cfg);
int sibyl_run_cfg_from_json(json_t *j, struct sibyl_run_cfg *cfg, struct sibyl_kernel *k);

/* Whether the run passes and reads back a counters buffer (-i). */
static inline bool sibyl_run_cfg_counts(const struct sibyl_run_cfg *cfg)
{
	return (cfg->spir_path && !cfg->spir_plain) || cfg->counted_source;
}

/* The arguments' configuration of the sample with `seed` (the runner's,
 * and sibyl's when it reports what a failed sample got). */
struct sibyl_args_cfg;
void sibyl_run_cfg_args(const struct sibyl_run_cfg *cfg, uint64_t seed, uint64_t local_elements,
			struct sibyl_args_cfg *out);

/* The number of global sizes cfg covers. */
size_t sibyl_run_cfg_sizes(const struct sibyl_run_cfg *cfg);

/* Build and run; returns the child's exit status: 0, or 1 (or
 * SIBYL_KRUN_EXIT_*) with the error line in err. */
int sibyl_run_samples(const struct sibyl_run_cfg *cfg, int fd, char *err, size_t errlen);

/* cfg->probe: {"event":"device", "platform", "device", "spir": whether
 * it lists cl_khr_spir}; 0, or 1 with err (no such device). */
int sibyl_run_probe(const struct sibyl_run_cfg *cfg, int fd, char *err, size_t errlen);

/* Write one JSON object and a newline to fd (steals msg). */
void sibyl_emit(int fd, json_t *msg);

#endif
