/*
 * evaluate --plot: each held-out kernel's measured times (points),
 * OCLMan's predictions (blue line) and OCLBase's (red line) against the
 * global size, one panel per kernel, as the thesis' Figure 21.2.  The
 * time axis stops at twice the largest measured time: OCLBase is often
 * off by orders of magnitude, and its line then leaves the panel.
 */
#include "kmodel/evaluate.h"
#include "core/log.h"
#include "model/plot_file.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>

static void panel(const struct sibyl_kmodel_eval_row *r, double x0, double x1, double y0,
		  double y1)
{
	double gmax = 0, tmax = 0, unit;
	const char *uname;	/* too long for a panel: "us", "ms" or "s" instead */
	struct sibyl_plot_label name;
	char title[sizeof(name.s) + 64];
	PLFLT x[r->n], m[r->n], p[r->n], b[r->n];

	for (size_t i = 0; i < r->n; i++) {
		gmax = fmax(gmax, r->gsize[i]);
		tmax = fmax(tmax, r->measured[i]);
	}
	unit = sibyl_plot_time_unit(tmax, &uname);
	for (size_t i = 0; i < r->n; i++) {
		x[i] = r->gsize[i];
		m[i] = r->measured[i] * unit;
		p[i] = fmin(fmax(r->oclman[i] * unit, -1e30), 1e30);
		b[i] = fmin(fmax(r->oclbase[i] * unit, -1e30), 1e30);
	}
	plvpor(x0, x1, y0, y1);
	plwind(0, gmax * 1.05, 0, 2 * tmax * unit > 0 ? 2 * tmax * unit : 1);
	plcol0(15);
	plschr(0, 0.4);
	/* Global sizes from 0 to the largest, without numbers (they crowd);
	 * the unit of time is the kernel's own (sibyl_plot_time_unit). */
	plbox("bcst", 0, 0, "bcnstv", 0, 0);
	snprintf(title, sizeof(title), "%s R2 %.2f", sibyl_plot_label(&name, r->name),
		 r->r2_oclman);
	plmtex("t", 0.5, 0.5, 0.5, title);
	plmtex("l", 3.2, 0.5, 0.5, unit == 1e6 ? "us" : unit == 1e3 ? "ms" : "s");
	plcol0(15);
	plpoin((PLINT)r->n, x, m, 17);
	plcol0(9);
	plline((PLINT)r->n, x, p);
	plcol0(1);
	plline((PLINT)r->n, x, b);
}

int sibyl_kmodel_eval_plot(const struct sibyl_kmodel_eval *e, const char *path, bool force,
			   char *err, size_t errlen)
{
	struct sibyl_plot_file f;
	size_t cols = (size_t)ceil(sqrt((double)e->n * 1.4)), rows;

	if (!e->n)
		return sibyl_seterr(err, errlen, "%s: no kernel to plot", path);
	cols = cols ? cols : 1;
	rows = (e->n + cols - 1) / cols;
	if (sibyl_plot_begin(&f, path, force, err, errlen) < 0)
		return -1;
	pladv(0);
	for (size_t i = 0; i < e->n; i++) {
		double w = 0.96 / (double)cols, h = 0.92 / (double)rows;
		double x0 = 0.03 + w * (double)(i % cols), y1 = 0.95 - h * (double)(i / cols);

		panel(&e->rows[i], x0 + 0.02 * w * 3, x0 + w * 0.94, y1 - h * 0.72, y1 - h * 0.12);
	}
	plvpor(0, 1, 0, 1);
	plwind(0, 1, 0, 1);
	plcol0(15);
	plschr(0, 0.7);
	plmtex("t", -1.2, 0.5, 0.5, "held-out kernels: time against global size; "
	       "points measured, blue OCLMan, red OCLBase");
	return sibyl_plot_end(&f, path, err, errlen);
}
