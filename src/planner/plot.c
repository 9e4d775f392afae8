/* Profile plots with PLplot. */
#define _GNU_SOURCE
#include "planner/plot.h"
#include "core/alloc.h"
#include "model/plot_file.h"

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void draw_points(const struct sibyl_point *v, size_t n, double scale, int symbol)
{
	PLFLT *x = sibyl_xmalloc((n + 1) * sizeof(*x)), *y = sibyl_xmalloc((n + 1) * sizeof(*y));

	for (size_t i = 0; i < n; i++)
		x[i] = v[i].x, y[i] = v[i].y * scale;
	if (symbol)
		plpoin((PLINT)n, x, y, symbol);
	else
		plline((PLINT)n, x, y);
	free(x);
	free(y);
}

/* An envelope: each implementation's pieces in its own colour. */
static void draw_pieces(const struct sibyl_profile *p, double scale)
{
	static const PLINT palette[] = { 9, 1, 2, 13, 8, 10, 3, 14, 4, 12 };

	for (size_t i = 0; i < p->npieces; i++) {
		const struct sibyl_piece *q = &p->pieces[i];
		size_t k = 0, colour = i;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->pieces[j].name, q->name)) {
				colour = j;
				break;
			}
		struct sibyl_point *v = sibyl_xmalloc((p->npoints + 2) * sizeof(*v));

		v[k++] = (struct sibyl_point){ q->from, sibyl_profile_eval(p, q->from) };
		for (size_t j = 0; j < p->npoints; j++)
			if (p->points[j].x > q->from && p->points[j].x < q->to)
				v[k++] = p->points[j];
		v[k++] = (struct sibyl_point){ q->to, sibyl_profile_eval(p, q->to) };
		plcol0(palette[colour % (sizeof(palette) / sizeof(palette[0]))]);
		draw_points(v, k, scale, 0);
		/* Name the winner above the middle of its piece. */
		double mid = (q->from + q->to) / 2;
		struct sibyl_plot_label name;

		plptex(mid, sibyl_profile_eval(p, mid) * scale, 1, 0, 0.5, sibyl_plot_label(&name, q->name));
		free(v);
	}
}

static void draw(const struct sibyl_profile *p)
{
	double xmin = p->lo, xmax = p->hi, ymax = 0;
	const char *unit;

	for (size_t i = 0; i < p->npoints; i++)
		ymax = fmax(ymax, p->points[i].y);
	for (size_t i = 0; i < p->nsamples; i++)
		ymax = fmax(ymax, p->samples[i].y);
	if (!(xmax > xmin))
		xmax = xmin + 1;
	double scale = sibyl_plot_time_unit(ymax > 0 ? ymax : 1, &unit);
	char ylabel[64], title[sizeof(struct sibyl_plot_label) + 16];
	struct sibyl_plot_label name, metric;

	snprintf(ylabel, sizeof(ylabel), "time (%s)", unit);
	snprintf(title, sizeof(title), "%s%s", sibyl_plot_label(&name, p->name ? p->name : "profile"),
		 p->complete ? "" : " (partial)");
	plcol0(15);
	plenv(xmin, xmax, 0, (ymax > 0 ? ymax : 1) * scale * 1.05, 0, 0);
	pllab(sibyl_plot_label(&metric, p->work_metric && *p->work_metric ? p->work_metric : "work metric"),
	      ylabel, title);
	plcol0(1);
	draw_points(p->samples, p->nsamples, scale, 1);
	plwidth(2);
	if (p->npieces)
		draw_pieces(p, scale);
	else {
		plcol0(9);
		draw_points(p->points, p->npoints, scale, 0);
		plcol0(2);
		draw_points(p->points, p->npoints, scale, 4);
	}
}

int sibyl_plot_profile(const struct sibyl_profile *p, const char *path, bool force,
		       char *err, size_t errlen)
{
	struct sibyl_plot_file f;

	if (sibyl_plot_begin(&f, path, force, err, errlen) < 0)
		return -1;
	draw(p);
	return sibyl_plot_end(&f, path, err, errlen);
}
