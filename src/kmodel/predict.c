/* OCLMan for a new kernel: profile, OCLBoi, time model. */
#include "kmodel/predict.h"
#include "kmodel/boi.h"
#include "kmodel/dataset.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this factor of the profiled sizes a prediction extrapolates
 * far: the thesis' kernel 2 failed there (ch. 21.4.2). */
#define FAR 4.0

/* The kernel's counts at the profiled sizes, in a private temporary
 * dataset. */
static int profile(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_predict_opts *o,
		   const char *path, struct sibyl_kmodel_data *d, char *err, size_t errlen)
{
	struct sibyl_kmodel_entry e = { (char *)o->kernel, (char *)o->file, (char *)"",
					(char *)o->profile, o->lsize };
	struct sibyl_kmodel_suite s = { (char *)"(predict)", o->samples, &e, 1 };
	/* Counted as the device model's dataset was. */
	struct sibyl_kmodel_dataset_opts dop = {
		.out = path, .platform = o->platform, .device = o->device,
		.opt_level = m->opt_level, .samples = o->samples, .timeout_s = o->timeout_s,
	};
	int r = sibyl_kmodel_dataset(&s, &dop, err, errlen);

	if (r > 0)
		return sibyl_seterr(err, errlen, "kmodel: profiling %s failed (see above)",
				    o->kernel);
	if (r < 0)
		return -1;
	return sibyl_kmodel_data_read(path, false, d, err, errlen);
}

static int check_device(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_data *d,
			char *err, size_t errlen)
{
	const char *dev = json_string_value(json_object_get(d->header, "device"));

	if (dev && strcmp(dev, m->device))
		return sibyl_seterr(err, errlen, "kmodel: the model was trained on %s, the kernel "
				    "ran on %s: train one for this device (kmodel train-device)",
				    m->device, dev);
	return 0;
}

static void estimate(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_table *t,
		     const struct sibyl_kmodel_boi *b, double g, struct sibyl_kmodel_prediction *p)
{
	double *c = sibyl_xcalloc(t->nf + 1, sizeof(*c));

	sibyl_kmodel_boi_predict(b, g, c);
	p->seconds = sibyl_kmodel_device_time(m, c, t->names, t->nf);
	double a = p->seconds * m->cv.lo, z = p->seconds * m->cv.hi;

	/* No time is negative, whatever a ratio of a poor fit says. */
	p->low = fmax(0, fmin(a, z));
	p->high = fmax(0, fmax(a, z));
	p->gmin = b->gmin;
	p->gmax = b->gmax;
	p->oclboi = b->kind;
	p->oclboi_cv_r2 = b->score;
	free(c);
}

static int model(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_data *d,
		 double g, struct sibyl_kmodel_prediction *p, char *err, size_t errlen)
{
	struct sibyl_kmodel_table t;
	struct sibyl_kmodel_boi b;
	uint64_t t0 = sibyl_mono_ns();
	int r = sibyl_kmodel_table_build(d, &t, err, errlen);

	if (r)
		return r;
	r = sibyl_kmodel_boi_fit(t.g, t.C, t.ns, t.nf, &b, err, errlen);
	if (!r) {
		estimate(m, &t, &b, g, p);
		sibyl_kmodel_boi_free(&b);
	}
	p->fit_seconds = (double)(sibyl_mono_ns() - t0) * 1e-9;
	sibyl_kmodel_table_free(&t);
	return r;
}

int sibyl_kmodel_predict(const struct sibyl_kmodel_device *m,
			 const struct sibyl_kmodel_predict_opts *o,
			 struct sibyl_kmodel_prediction *p, char *err, size_t errlen)
{
	char *dir = sibyl_private_tmpdir("sibyl-kmodel");
	struct sibyl_kmodel_data d = { 0 };
	int r;

	memset(p, 0, sizeof(*p));
	if (!dir)
		return sibyl_seterr_errno(err, errlen, "kmodel: temporary directory");
	char *path = sibyl_path_join(dir, "profile.jsonl");

	r = profile(m, o, path, &d, err, errlen);
	if (!r)
		r = check_device(m, &d, err, errlen);
	if (!r)
		r = model(m, &d, o->gsize, p, err, errlen);
	if (!r && (o->gsize > FAR * p->gmax || o->gsize < p->gmin / FAR))
		sibyl_warn("kmodel: global size %.0f is far outside the profiled %.0f..%.0f: "
			   "the prediction extrapolates (profile larger sizes with --profile)",
			   o->gsize, p->gmin, p->gmax);
	sibyl_kmodel_data_free(&d);
	sibyl_remove_tree(dir);
	free(path);
	free(dir);
	return r;
}
