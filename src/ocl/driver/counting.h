/*
 * The -i run's files: the instrumented bitcode goes to a private
 * temporary directory for sibyl-kernel-run, which writes each sample's
 * raw counters next to it; the layout that decodes them stays in sibyl
 * (guard.c). Everything is removed afterwards, also what a crashed
 * runner left.
 */
#ifndef SIBYL_OCL_COUNTING_H
#define SIBYL_OCL_COUNTING_H

#include "ocl/instrument/instrument.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/run.h"

struct sibyl_counting {
	struct sibyl_instrumented inst;
	char *dir;	/* private, under $TMPDIR or /tmp */
	char *spir, *counters;
	char *source;	/* --source-counters: the device's marked copy */
};

/* Instrument `kernel` of `bc` (cfg->races: the race probe's copy) and
 * point cfg at the files. Returns 0 or
 * -1 with the error line in err; call sibyl_counting_done either way. */
int sibyl_counting_prepare(struct sibyl_counting *c, const void *bc, size_t size,
			   struct sibyl_run_cfg *cfg, char *err, size_t errlen);
/* --spir: the plain bitcode (the very IR -i instruments) goes to the
 * directory for the runner, which loads it as a binary without a
 * counters argument. Same contract as sibyl_counting_prepare. */
int sibyl_counting_plain(struct sibyl_counting *c, const void *bc, size_t size,
			 struct sibyl_run_cfg *cfg, char *err, size_t errlen);
/* -i --source-counters: mark the source's regions (instrument/source.h),
 * compile the analysis copy with clang-14 to relate the marks to the
 * blocks of `bc` (the plain -O0 bitcode, which the counts are of), and
 * point cfg at the device's copy. Same contract. */
int sibyl_counting_source(struct sibyl_counting *c, const struct sibyl_compile_opts *o,
			  const struct sibyl_kernels *ks, const void *bc, size_t size,
			  struct sibyl_run_cfg *cfg, char *err, size_t errlen);
/* What a run counts: -i (through the source with `source`), --spir. */
struct sibyl_counting_how {
	bool inst, spir, source;
	double build_timeout_s;		/* the device probe's limit (-i) */
	const struct sibyl_compile_opts *c;
	const struct sibyl_kernels *ks;
};

/* The one of the above that `how` asks for (nothing for a plain run);
 * with -v, says which way -i counts. Same contract. */
int sibyl_counting_start(struct sibyl_counting *c, const struct sibyl_counting_how *how,
			 const void *bc, size_t size, struct sibyl_run_cfg *cfg, char *err,
			 size_t errlen);
void sibyl_counting_done(struct sibyl_counting *c);

#endif
