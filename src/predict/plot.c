/*
 * predict --plot: for each kernel, every counted call's measured time
 * (the original) and predicted time (the accelerated implementation)
 * against its work, over the profile's curve, on log-log axes (work
 * metrics and times span decades).  It shows at a glance where the
 * accelerator wins, where it loses, and which calls lie outside the
 * profile.
 */
#include "predict/internal.h"

#include "core/log.h"

#include "core/alloc.h"
#include "model/plot_file.h"
#include "model/profile.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>

#define CURVE_POINTS 200

struct range {
	double xmin, xmax, ymin, ymax;
};

static void widen(struct range *r, double x, double y)
{
	if (!(x > 0 && y > 0))
		return;	/* not on log axes */
	r->xmin = fmin(r->xmin, x);
	r->xmax = fmax(r->xmax, x);
	r->ymin = fmin(r->ymin, y);
	r->ymax = fmax(r->ymax, y);
}

static void point(double x, double y, PLINT symbol)
{
	if (x > 0 && y > 0) {
		PLFLT lx = log10(x), ly = log10(y);

		plpoin(1, &lx, &ly, symbol);
	}
}

/* The profile over the calls' work, as a line in log space. */
static void curve(const struct sibyl_profile *p, const struct range *r)
{
	PLFLT x[CURVE_POINTS], y[CURVE_POINTS];
	PLINT n = 0;

	for (int i = 0; i < CURVE_POINTS; i++) {
		double w = pow(10, log10(r->xmin) + (log10(r->xmax) - log10(r->xmin)) * i /
				       (CURVE_POINTS - 1));
		double t = sibyl_profile_eval(p, w);

		if (t > 0) {
			x[n] = log10(w);
			y[n++] = log10(t);
		}
	}
	if (n > 1)
		plline(n, x, y);
}

static void draw(const struct sibyl_prediction *p, const struct sibyl_predict_options *o,
		 const struct predict_calls *calls, const struct range *r)
{
	static const PLINT palette[] = { 9, 1, 2, 13, 8, 10, 3, 14, 4, 12 };
	struct sibyl_plot_label name;
	char line[sizeof(name.s) + 64];

	plcol0(15);
	plenv(log10(r->xmin) - 0.1, log10(r->xmax) + 0.1, log10(r->ymin) - 0.1, log10(r->ymax) + 0.3,
	      0, 30);
	pllab("work of the call (log)", "time, seconds (log)",
	      "o measured on the original, x predicted accelerated, line: profile");
	for (size_t k = 0, from = 0; k < p->nkernels; k++) {
		const struct sibyl_kernel_prediction *kp = &p->kernels[k];
		size_t to = predict_kernel_end(calls, from);

		plcol0(palette[k % (sizeof(palette) / sizeof(palette[0]))]);
		plwidth(2);
		curve(kp->model->profile, r);
		plwidth(1);
		for (size_t i = from; i < to; i++) {
			const struct predict_call *c = &calls->v[i];
			struct predict_time t;

			if (c->nested)
				continue;
			t = predict_call_time(o, kp->model->profile, c);
			point(c->work, c->seconds, 4);
			point(c->work, t.compute + t.transfer, 5);
		}
		snprintf(line, sizeof(line), "%s (%lu calls)", sibyl_plot_label(&name, kp->name),
			 (unsigned long)kp->calls);
		plmtex("t", -1.5 - 1.2 * (double)k, 0.02, 0, line);
		from = to;
	}
}

int sibyl_prediction_plot(const struct sibyl_predict_options *o, const struct sibyl_prediction *p,
			  const char *path, bool force, char *err, size_t errlen)
{
	const struct predict_calls *calls = p->calls;
	struct range r = { INFINITY, -INFINITY, INFINITY, -INFINITY };
	struct sibyl_plot_file f;
	int rc = 0;

	for (size_t i = 0; i < calls->n; i++) {
		const struct predict_call *c = &calls->v[i];
		struct predict_time pt;

		if (c->nested)
			continue;
		pt = predict_call_time(o, p->kernels[c->kernel].model->profile, c);
		widen(&r, c->work, c->seconds);
		widen(&r, c->work, pt.compute + pt.transfer);
	}
	if (!(r.xmax >= r.xmin && r.ymax >= r.ymin)) {
		rc = sibyl_seterr(err, errlen, "%s: no call with a positive work and time to plot",
				  path);
	}
	if (rc == 0 && r.xmax == r.xmin)
		r.xmin /= 2, r.xmax *= 2;
	if (rc == 0 && (rc = sibyl_plot_begin(&f, path, force, err, errlen)) == 0) {
		draw(p, o, calls, &r);
		rc = sibyl_plot_end(&f, path, err, errlen);
	}
	return rc;
}
