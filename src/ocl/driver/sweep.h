/*
 * Dataset sweeps: `--gsize FROM:TO:STEP --samples N --out data.jsonl`
 * runs every global size (one guarded runner for all) and writes one
 * JSON line per sample: kernel, gsize, lsize, sample, seed, times and,
 * with -i, the instruction counts. A crash or timeout is reported and
 * the sweep goes on. The file appears only when the sweep is over
 * (temporary file + rename); an existing one needs --force.
 */
#ifndef SIBYL_OCL_SWEEP_H
#define SIBYL_OCL_SWEEP_H

#include "ocl/driver/guard.h"
#include "ocl/driver/run.h"

#include <stdbool.h>
#include <stdint.h>

struct sibyl_range {
	uint64_t from, to, step;
};

/* "N" or "FROM:TO[:STEP]" (STEP defaults to FROM). Returns 0, or -1
 * with the error line in err. */
int sibyl_range_parse(const char *s, struct sibyl_range *r, char *err, size_t errlen);

struct sibyl_sweep_opts {
	const char *out;	/* jsonl path; NULL: stdout */
	bool force, coarse;
	double timeout_s, build_timeout_s;	/* guard.h */
};

/* Returns 0 when every sample ran, 1 when some failed (each an error
 * notice, core/log.h), -1 with the error line in err; *status is the
 * last failure's kind (SIBYL_KS_OK when none), for the exit status. */
int sibyl_sweep(struct sibyl_run_cfg *cfg, const struct sibyl_range *r,
		const struct sibyl_sweep_opts *o, enum sibyl_kstatus *status, char *err,
		size_t errlen);

#endif
