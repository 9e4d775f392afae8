/*
 * The shape of a launch: `-g 64,16[,4]` and `-l 8,8` (up to three
 * dimensions), and the kernel's reqd_work_group_size, which wins over
 * -l (a kernel compiled for one work-group size runs with no other).
 * Everything sized by "the global size" (the value range, buffers,
 * counters) uses the total number of work-items.
 */
#ifndef SIBYL_OCL_NDRANGE_H
#define SIBYL_OCL_NDRANGE_H

#include "ocl/driver/kernel_info.h"
#include "ocl/driver/sweep.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sibyl_ndrange {
	unsigned dims;		/* 1..3 */
	uint64_t g[3], l[3];	/* l[0] == 0: the runtime chooses */
};

/* "N[,N[,N]]" into v (the rest 1); 0, or -1 with the line in err.
 * zero_ok: "0" alone means none (-l 0). */
int sibyl_dims_parse(const char *s, const char *opt, uint64_t v[3], unsigned *dims, bool zero_ok,
		     char *err, size_t errlen);

/* Take reqd_work_group_size (reqd[0] == 0: none) as the local size: 1
 * when -l said otherwise (the line to warn with in err), else 0. */
int sibyl_ndrange_reqd(struct sibyl_ndrange *r, const uint64_t reqd[3], const char *kernel,
		       char *err, size_t errlen);

/* Every global size a multiple of its local size: 0, or -1 with err. */
int sibyl_ndrange_check(const struct sibyl_ndrange *r, char *err, size_t errlen);

/* -g (a shape "64,16" or a 1-D sweep "FROM:TO:STEP") and -l (NULL:
 * none) for `kernel` (its reqd_work_group_size wins, with a warning
 * notice when -l disagreed) into *nd and *r (r in work-items in all;
 * a shape is one size).  0, or -1 with the line in err. */
int sibyl_launch_shape(const char *gsize, const char *lsize, const struct sibyl_kernel *k,
		       struct sibyl_ndrange *nd, struct sibyl_range *r, char *err, size_t errlen);

/* The product of the first dims entries (0 when one overflows). */
uint64_t sibyl_dims_total(const uint64_t v[3], unsigned dims);

/* "64,16" into buf. */
const char *sibyl_dims_format(const uint64_t v[3], unsigned dims, char *buf, size_t len);

#endif
