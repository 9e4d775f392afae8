/*
 * A dataset (dataset.h) as matrices for the models: every sample's
 * global size, device time and counts over one list of instruction
 * names (the union over the file's kernels, sorted), and each kernel's
 * samples and static counts.
 */
#ifndef SIBYL_KMODEL_TABLE_H
#define SIBYL_KMODEL_TABLE_H

#include "kmodel/dataset.h"

#include <stddef.h>

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
	double *g, *t;		/* global size, device time in seconds */
	double *C;		/* counts, ns x nf */
	size_t nk;
	struct sibyl_kmodel_kernel *k;
};

/* From a dataset read with sibyl_kmodel_data_read (which must outlive
 * the table). 0, or -1 with the line in err (no samples). */
int sibyl_kmodel_table_build(const struct sibyl_kmodel_data *d, struct sibyl_kmodel_table *t,
			     char *err, size_t errlen);
void sibyl_kmodel_table_free(struct sibyl_kmodel_table *t);

#endif
