/*
 * The per-device time model file (`sibyl kmodel train-device`,
 * docs/kmodel.md): versioned JSON with its provenance — the device and
 * platform the dataset was measured on, the suite, sibyl's version —
 * the time model's kind, launch cost and cost per instruction, and what
 * cross validation across kernels said of it (its median R^2, and the
 * spread of measured / predicted time that makes prediction intervals).
 */
#ifndef SIBYL_KMODEL_DEVMODEL_H
#define SIBYL_KMODEL_DEVMODEL_H

#include "kmodel/table.h"
#include "kmodel/timemodel.h"

#include <stdbool.h>

struct sibyl_kmodel_device {
	char *device, *platform, *suite, *sibyl, *dataset;
	char *opt_level;			/* clang -O of the counted IR */
	long compute_units;			/* the device's threads; 0: not said */
	enum sibyl_kmodel_clock clock;		/* the time it predicts */
	int dataset_version;			/* the naming of its counts (dataset.h) */
	size_t kernels;				/* trained on */
	char **names;				/* tm.nf instruction names */
	struct sibyl_kmodel_tm tm;
	struct sibyl_kmodel_tm_choice cv;
};

/* Choose the kind by 5-fold cross validation over the kernels, fit on
 * them all.  d is the dataset t was built from. */
int sibyl_kmodel_device_train(const struct sibyl_kmodel_data *d, const char *dataset,
			      const struct sibyl_kmodel_table *t, struct sibyl_kmodel_device *m,
			      char *err, size_t errlen);
int sibyl_kmodel_device_save(const struct sibyl_kmodel_device *m, const char *path, bool force,
			     char *err, size_t errlen);
int sibyl_kmodel_device_load(const char *path, struct sibyl_kmodel_device *m, char *err,
			     size_t errlen);
/* Seconds for counts given by name (JSON object {name: count}). */
double sibyl_kmodel_device_time(const struct sibyl_kmodel_device *m, const double *counts,
				const char *const *names, size_t n);
void sibyl_kmodel_device_free(struct sibyl_kmodel_device *m);
/* The compute units a dataset header or model file j names, 0 when it
 * names none (files before they were recorded). */
long sibyl_kmodel_units(json_t *j);
/* A model file's compute units (when said) and clock, written and read
 * alike by device and kernel models; a file without "clock" predicts
 * device time.  Reading: -1 (said why) when "clock" names no clock. */
void sibyl_kmodel_identity_put(json_t *j, long units, enum sibyl_kmodel_clock clock);
int sibyl_kmodel_identity_get(json_t *j, const char *path, long *units,
			      enum sibyl_kmodel_clock *clock, char *err, size_t errlen);
/* Whether times on device a with ua compute units and on b with ub are
 * of one device: the same name, and the same count unless one is not
 * known.  PoCL's CPU device has one name at any thread count
 * (POCL_MAX_PTHREAD_COUNT), and a launch on 1 thread takes up to twice
 * as long as on 2. */
bool sibyl_kmodel_same_device(const char *a, long ua, const char *b, long ub);

#endif
