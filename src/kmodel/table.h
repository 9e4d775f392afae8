/*
 * A dataset (dataset.h) as matrices for the models: every sample's
 * global size, time and counts over one list of instruction
 * names (the union over the file's kernels, sorted), and each kernel's
 * samples and static counts.
 */
#ifndef SIBYL_KMODEL_TABLE_H
#define SIBYL_KMODEL_TABLE_H

#include "kmodel/dataset.h"

#include <stddef.h>

/* Which time of a sample the models learn and predict: the device's
 * (CL_PROFILING_COMMAND_START..END, `device_ns`) or the CPU time the
 * driver's process used over the launch (`cpu_ns`): on a CPU device
 * shared with other processes, the work that their load does not
 * stretch (docs/kmodel.md). */
enum sibyl_kmodel_clock { SIBYL_CLOCK_DEVICE, SIBYL_CLOCK_CPU };

/* "device", "cpu"; and back (-1 when neither). */
const char *sibyl_kmodel_clock_name(enum sibyl_kmodel_clock c);
int sibyl_kmodel_clock_of(const char *name, enum sibyl_kmodel_clock *c);

struct sibyl_kmodel_kernel {
	const char *name;	/* borrowed from the data */
	size_t *rows;		/* its samples, in file order */
	size_t n;
	double *stat;		/* static counts, nf */
};

struct sibyl_kmodel_table {
	size_t nf;		/* instruction names */
	const char **names;	/* sorted */
	size_t ns;		/* samples */
	double *g, *t;		/* global size, time in seconds (the clock's) */
	double *C;		/* counts, ns x nf */
	size_t nk;
	struct sibyl_kmodel_kernel *k;
	enum sibyl_kmodel_clock clock;	/* of t */
};

/* From a dataset read with sibyl_kmodel_data_read (which must outlive
 * the table), times by `clock`. 0, or -1 with the line in err (no
 * samples, or a sample without that clock's time). */
int sibyl_kmodel_table_build(const struct sibyl_kmodel_data *d, enum sibyl_kmodel_clock clock,
			     struct sibyl_kmodel_table *t, char *err, size_t errlen);
void sibyl_kmodel_table_free(struct sibyl_kmodel_table *t);

#endif
