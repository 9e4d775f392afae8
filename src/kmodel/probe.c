/* predict's and fit's profile sizes, chosen by timing the kernel
 * (sizes.h's rule, its timer here: the plain kernel, as a user runs
 * it, in its guarded child). */
#include "kmodel/kfit.h"
#include "kmodel/dataset.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "ocl/driver/compile.h"
#include "ocl/driver/guard.h"
#include "ocl/driver/kernel_info.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* PoCL compiles a kernel at its first launch; sibyl kernel's default limit. */
#define BUILD_TIMEOUT_S 600.0

struct probe {
	const struct sibyl_kmodel_kfit_opts *o;
	struct sibyl_run_cfg cfg;
	double least;		/* seconds, of the run under way */
	char err[512];		/* the first failure's */
};

static void on_sample(void *ctx, json_t *msg)
{
	struct probe *p = ctx;
	json_t *ns = json_object_get(msg, "device_ns");

	if (json_is_number(ns))
		p->least = fmin(p->least, json_number_value(ns) * 1e-9);
}

/* sizes.h's timer: the least device time of o->samples launches after
 * a warm-up (PoCL compiles at a size's first launch). */
static double time_at(void *ctx, uint64_t want, uint64_t *got, double *cost)
{
	struct probe *p = ctx;
	struct sibyl_guard g = { .timeout_s = p->o->timeout_s, .build_timeout_s = BUILD_TIMEOUT_S,
				 .on_sample = on_sample, .ctx = p };
	uint64_t t0 = sibyl_mono_ns();
	char err[512];

	*got = p->cfg.gsize = want;
	p->least = INFINITY;
	int r = sibyl_run_guarded(&p->cfg, &g, err, sizeof(err));

	free(g.chatter);
	*cost = (double)(sibyl_mono_ns() - t0) * 1e-9;
	if (r < 0 && !p->err[0])
		snprintf(p->err, sizeof(p->err), "%s", err);
	return r == 0 && isfinite(p->least) ? p->least : NAN;
}

/* The first size: SIBYL_KMODEL_PROFILE_START rounded up to a multiple
 * of the work-group size (the kernel's reqd_work_group_size, else -l). */
static uint64_t start_of(const struct sibyl_kernel *k, long lsize)
{
	uint64_t unit = lsize > 0 ? (uint64_t)lsize : 1;

	if (k->reqd_wg[0])
		unit = k->reqd_wg[0] * (k->reqd_wg[1] ? k->reqd_wg[1] : 1) *
		       (k->reqd_wg[2] ? k->reqd_wg[2] : 1);
	return (SIBYL_KMODEL_PROFILE_START + unit - 1) / unit * unit;
}

int sibyl_kmodel_kfit_choose(const struct sibyl_kmodel_kfit_opts *o, struct sibyl_kmodel_sizes *s,
			     char *err, size_t errlen)
{
	struct sibyl_compile_opts c = { .file = o->file };
	struct sibyl_kernels ks;
	const struct sibyl_kernel *k;
	void *bc;
	size_t size;
	struct probe p = { .o = o };
	int r = sibyl_kmodel_kernel_open(o->file, o->kernel, o->opt_level, &bc, &size, &ks, &k, err,
					 errlen);

	free(bc);
	if (r < 0) {
		char why[512];

		/* As the dataset says it of a kernel (dataset.c). */
		snprintf(why, sizeof(why), "%s", err + (strncmp(err, "kmodel: ", 8) ? 0 : 8));
		sibyl_seterr(err, errlen, "kmodel: %s: %s", o->kernel, why);
		return sibyl_kernels_free(&ks), -1;
	}
	p.cfg = (struct sibyl_run_cfg){
		.platform = o->platform, .device = o->device, .kernel = k, .file = o->file,
		.build_options = sibyl_build_options(&c), .lsize = (uint64_t)o->lsize,
		.samples = o->samples, .warmup = 1,
	};
	struct sibyl_kmodel_size_rule rule = {
		.start = start_of(k, o->lsize), .cap = SIBYL_KMODEL_PROFILE_CAP,
		.launch_s = o->launch_s,
		.factor = o->factor > 0 ? o->factor : SIBYL_KMODEL_LAUNCH_FACTOR,
		.budget_s = o->budget_s, .samples = (unsigned)o->samples,
	};

	r = sibyl_kmodel_sizes_choose(&rule, time_at, &p, s);
	if (r < 0)
		sibyl_seterr(err, errlen, "kmodel: timing %s at %llu work-items to choose its "
			     "profile: %s", o->kernel, (unsigned long long)rule.start,
			     p.err[0] ? p.err : "no time measured");
	free((char *)p.cfg.build_options);
	sibyl_kernels_free(&ks);
	return r;
}
