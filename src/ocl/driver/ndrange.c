/* Multi-dimensional launches (ndrange.h). */
#include "ocl/driver/ndrange.h"
#include "core/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sibyl_dims_parse(const char *s, const char *opt, uint64_t v[3], unsigned *dims, bool zero_ok,
		     char *err, size_t errlen)
{
	const char *p = s;
	char *end;

	v[0] = v[1] = v[2] = 1;
	for (*dims = 0; *dims < 3; p = end + 1) {
		errno = 0;
		uint64_t x = strtoull(p, &end, 10);

		if (errno || end == p || *p == '-' || (*end && *end != ',') || x > INT64_MAX ||
		    (!x && !(zero_ok && !*dims && !*end)))
			break;
		v[(*dims)++] = x;
		if (!*end)
			return 0;
	}
	return sibyl_seterr(err, errlen, "kernel: %s: expected N or N,N or N,N,N (sizes from 1 "
			    "to 2^63-1), got '%s'", opt, s);
}

uint64_t sibyl_dims_total(const uint64_t v[3], unsigned dims)
{
	uint64_t t = 1;

	for (unsigned d = 0; d < dims; d++)
		if (__builtin_mul_overflow(t, v[d], &t) || t > INT64_MAX)
			return 0;
	return t;
}

const char *sibyl_dims_format(const uint64_t v[3], unsigned dims, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	for (unsigned d = 0; d < dims && n >= 0 && (size_t)n < len; d++)
		n += snprintf(buf + n, len - (size_t)n, "%s%" PRIu64, d ? "," : "", v[d]);
	return buf;
}

int sibyl_ndrange_reqd(struct sibyl_ndrange *r, const uint64_t reqd[3], const char *kernel,
		       char *err, size_t errlen)
{
	char want[64], had[64];
	unsigned dims = reqd[2] > 1 ? 3 : reqd[1] > 1 ? 2 : 1;
	bool differs = false;

	if (!reqd[0])
		return 0;
	if (dims > r->dims)	/* a 2-D work-group needs a 2-D range */
		r->dims = dims;
	for (unsigned d = 0; d < 3; d++)
		differs |= r->l[0] && r->l[d] != reqd[d];
	sibyl_dims_format(r->l, r->dims, had, sizeof(had));
	memcpy(r->l, reqd, sizeof(r->l));
	if (!differs)
		return 0;
	sibyl_seterr(err, errlen, "kernel: %s requires work-groups of %s "
		     "(reqd_work_group_size); -l %s ignored", kernel,
		     sibyl_dims_format(reqd, r->dims, want, sizeof(want)), had);
	return 1;
}

int sibyl_ndrange_check(const struct sibyl_ndrange *r, char *err, size_t errlen)
{
	char g[64], l[64];

	for (unsigned d = 0; r->l[0] && d < r->dims; d++)
		if (r->g[d] % r->l[d])
			return sibyl_seterr(err, errlen, "kernel: every global size must be a "
					    "multiple of the local size %s (OpenCL 1.2; -g %s)",
					    sibyl_dims_format(r->l, r->dims, l, sizeof(l)),
					    sibyl_dims_format(r->g, r->dims, g, sizeof(g)));
	return 0;
}

/* -l against a sweep: every size of it a multiple. */
static int check_sweep(const struct sibyl_range *r, uint64_t l, char *err, size_t errlen)
{
	if (l && (r->from % l || (r->from != r->to && r->step % l)))
		return sibyl_seterr(err, errlen, "kernel: every global size must be a multiple "
				    "of the local size %" PRIu64 " (OpenCL 1.2)", l);
	return 0;
}

int sibyl_launch_shape(const char *gsize, const char *lsize, const struct sibyl_kernel *k,
		       struct sibyl_ndrange *nd, struct sibyl_range *r, char *err, size_t errlen)
{
	unsigned ldims = 1;
	char warn[512];

	memset(nd, 0, sizeof(*nd));
	nd->dims = 1;
	if (lsize && sibyl_dims_parse(lsize, "--lsize", nd->l, &ldims, true, err, errlen) < 0)
		return -1;
	if (!lsize)
		nd->l[0] = 0;
	if (!strchr(gsize, ',')) {
		if (sibyl_range_parse(gsize, r, err, errlen) < 0)
			return -1;
		nd->g[0] = r->from;
		nd->g[1] = nd->g[2] = 1;
	} else if (sibyl_dims_parse(gsize, "--gsize", nd->g, &nd->dims, false, err, errlen) < 0) {
		return -1;
	}
	if (ldims > nd->dims)
		return sibyl_seterr(err, errlen, "kernel: -l %s has more dimensions than -g %s",
				    lsize, gsize);
	if (sibyl_ndrange_reqd(nd, k->reqd_wg, k->name, warn, sizeof(warn)))
		sibyl_warn("%s", warn);
	if (nd->dims > 1 || k->reqd_wg[0]) {
		if (nd->dims > 1) {	/* "64:128,16" failed to parse: sweeps are 1-D */
			uint64_t t = sibyl_dims_total(nd->g, nd->dims);

			if (!t)
				return sibyl_seterr(err, errlen, "kernel: -g %s: more than 2^63-1 "
						    "work-items", gsize);
			*r = (struct sibyl_range){ t, t, t };
		}
		return sibyl_ndrange_check(nd, err, errlen) < 0 ? -1
		       : nd->dims == 1 ? check_sweep(r, nd->l[0], err, errlen) : 0;
	}
	return check_sweep(r, nd->l[0], err, errlen);
}
