/*
 * report --worksize-check --plot: like the paper's Figures 5-7, each
 * compared call is two points, its input and its output size, at x =
 * the manual size and y = the automatic one, on log-log axes (sizes span
 * decades); the closer to the identity line, the better the estimate.
 * Zero sizes cannot sit on log axes and are drawn at 1 byte.
 */
#include "trace/internal.h"
#include "core/log.h"
#include "model/plot_file.h"

#include <math.h>
#include <plplot.h>

static double at_least_one(uint64_t v)
{
	return v ? (double)v : 1.0;
}

static void range_of(const struct sibyl_ws_check *c, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = 1;
	for (size_t i = 0; i < c->npoints; i++) {
		const struct sibyl_ws_check_point *p = &c->points[i];
		double v[4] = { at_least_one(p->manual_in), at_least_one(p->manual_out),
				at_least_one(p->auto_in), at_least_one(p->auto_out) };

		for (int k = 0; k < 4; k++) {
			*lo = fmin(*lo, v[k]);
			*hi = fmax(*hi, v[k]);
		}
	}
	if (!isfinite(*lo))
		*lo = 1;
	*lo = floor(log10(*lo));
	*hi = ceil(log10(*hi));
	if (*hi <= *lo)
		*hi = *lo + 1;
}

static void point(uint64_t x, uint64_t y, PLINT colour, PLINT symbol)
{
	PLFLT lx = log10(at_least_one(x)), ly = log10(at_least_one(y));

	plcol0(colour);
	plpoin(1, &lx, &ly, symbol);
}

static void draw(const struct sibyl_ws_check *c)
{
	double lo, hi;

	range_of(c, &lo, &hi);
	plcol0(15);
	plenv(lo, hi, lo, hi, 1, 30);
	pllab("expected (manual expression), bytes", "automatic estimate, bytes",
	      "work size: o input, x output; line: identity");
	PLFLT x[2] = { lo, hi };

	pllsty(2);
	plline(2, x, x);
	pllsty(1);
	for (size_t i = 0; i < c->npoints; i++) {
		const struct sibyl_ws_check_point *p = &c->points[i];

		point(p->manual_in, p->auto_in, 9, 4);
		point(p->manual_out, p->auto_out, 1, 5);
	}
}

int sibyl_worksize_check_plot(const struct sibyl_ws_check *c, const char *path, bool force,
			      char *err, size_t errlen)
{
	struct sibyl_plot_file f;

	if (!c->npoints)
		return sibyl_seterr(err, errlen, "no call has both a manual and an automatic size "
				    "to plot (wrap with --gen worksize.manual,worksize.fast)");
	if (sibyl_plot_begin(&f, path, force, err, errlen))
		return -1;
	draw(c);
	return sibyl_plot_end(&f, path, err, errlen);
}
