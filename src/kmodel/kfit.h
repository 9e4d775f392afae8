/*
 * A kernel's model (`sibyl kmodel fit`, docs/kmodel.md): the kernel
 * profiled at small global sizes (its dynamic instruction counts and
 * device times, as `kmodel dataset` measures them) and its OCLBoi fitted
 * on them.  Saved as versioned JSON with its provenance (the kernel and
 * file, the sizes profiled, the device and -O level they were counted
 * at, sibyl's version), OCLBoi's coefficients and the samples, so that
 * `predict --kernel-model` needs no new profile: the samples are kept
 * because the prediction interval propagates OCLBoi's fit uncertainty
 * through each device's time model, whose costs the file cannot know.
 */
#ifndef SIBYL_KMODEL_KFIT_H
#define SIBYL_KMODEL_KFIT_H

#include "kmodel/boi.h"
#include "kmodel/sizes.h"
#include "kmodel/table.h"

#include <stdbool.h>
#include <stddef.h>

struct sibyl_kmodel_kfit_opts {
	const char *file, *kernel;
	const char *profile;		/* global sizes profiled, FROM:TO:STEP;
					 * NULL: chosen by the kernel's time */
	double launch_s;		/* the device model's launch cost; 0: none */
	double factor, budget_s;	/* sizes.h's rule */
	long lsize, samples;
	const char *platform, *device;
	const char *opt_level;		/* clang -O of the counted IR */
	enum sibyl_kmodel_clock clock;	/* the profile's times */
	double timeout_s;
};

struct sibyl_kmodel_kfit {
	char *kernel, *file, *profile, *device, *platform, *opt_level, *sibyl;
	long lsize, samples;
	int dataset_version;		/* the naming of its counts (dataset.h) */
	long compute_units;		/* of the device timed; 0: not said */
	enum sibyl_kmodel_clock clock;	/* of t */
	size_t nf, ns;
	char **names;			/* nf instruction names, sorted */
	double *g, *t, *C;		/* gsize, seconds (ns); counts (ns x nf) */
	struct sibyl_kmodel_boi b;
	double fit_seconds;		/* OCLBoi's selection and fit */
	bool chosen;			/* the profile was chosen by its time: */
	struct sibyl_kmodel_sizes sizes;
};

/* The profile sizes of o's kernel, by its time (sizes.h, probe.c).  0,
 * or -1 with the line in err. */
int sibyl_kmodel_kfit_choose(const struct sibyl_kmodel_kfit_opts *o, struct sibyl_kmodel_sizes *s,
			     char *err, size_t errlen);

/* Profile and fit.  0, or -1 with the line in err (empty when the
 * profile failed: its error notice has said why). */
int sibyl_kmodel_kfit_profile(const struct sibyl_kmodel_kfit_opts *o,
			      struct sibyl_kmodel_kfit *k, char *err, size_t errlen);
int sibyl_kmodel_kfit_save(const struct sibyl_kmodel_kfit *k, const char *path, bool force,
			   char *err, size_t errlen);
/* A file of another format or version, or a broken one, is refused in
 * one line. */
int sibyl_kmodel_kfit_load(const char *path, struct sibyl_kmodel_kfit *k, char *err,
			   size_t errlen);
void sibyl_kmodel_kfit_free(struct sibyl_kmodel_kfit *k);

#endif
