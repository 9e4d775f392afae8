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

/* Data spanning this factor or more goes on a log axis: on a linear one
 * the lower decades of a plan (where most of its samples lie) are a
 * smear at the origin. */
#define LOG_SPAN 100.0
#define MAX_LEGEND 12

/* What the plot shows and how: the window in data units, the axes. */
struct frame {
	double xmin, xmax, ymin, ymax, scale;
	const char *unit;          /* of time, after scaling */
	bool logx, logy;
};

static double tx(const struct frame *f, double x)
{
	return f->logx ? log10(x) : x;
}

static double ty(const struct frame *f, double y)
{
	return f->logy ? log10(y * f->scale) : y * f->scale;
}

static bool inside(const struct frame *f, double x, double y)
{
	return x >= f->xmin && x <= f->xmax && (!f->logy || y > 0);
}

/* The points within the window as symbols. */
static void draw_points(const struct frame *f, const struct sibyl_point *v, size_t n,
			const char *symbol)
{
	PLFLT *x = sibyl_xmalloc((n + 1) * sizeof(*x)), *y = sibyl_xmalloc((n + 1) * sizeof(*y));
	PLINT k = 0;

	for (size_t i = 0; i < n; i++)
		if (inside(f, v[i].x, v[i].y))
			x[k] = tx(f, v[i].x), y[k++] = ty(f, v[i].y);
	plstring(k, x, y, symbol);
	free(x);
	free(y);
}

/*
 * The profile through the points, within the window.  It is linear in
 * the work metric between two points, which on a log axis is a curve:
 * each piece is drawn in LINE_STEPS steps, evenly spaced on the axis,
 * or a line over a decade would be drawn as a chord far from it.
 */
#define LINE_STEPS 64

static void draw_line(const struct frame *f, const struct sibyl_point *v, size_t n)
{
	PLFLT *x = sibyl_xmalloc((n * LINE_STEPS + 1) * sizeof(*x));
	PLFLT *y = sibyl_xmalloc((n * LINE_STEPS + 1) * sizeof(*y));
	PLINT k = 0;

	for (size_t i = 0; i < n; i++)
		for (int s = 0; s < (i + 1 < n ? LINE_STEPS : 1); s++) {
			double a = tx(f, v[i].x), b = i + 1 < n ? tx(f, v[i + 1].x) : a;
			double u = a + (b - a) * s / LINE_STEPS, px = f->logx ? pow(10, u) : u;
			double py = i + 1 < n && v[i + 1].x > v[i].x ?
				    v[i].y + (v[i + 1].y - v[i].y) * (px - v[i].x) / (v[i + 1].x - v[i].x) :
				    v[i].y;

			if (inside(f, px, py))
				x[k] = u, y[k++] = ty(f, py);
		}
	plline(k, x, y);
	free(x);
	free(y);
}

/* A legend in the top left corner, which a profile rising with its
 * work metric leaves empty; inside the frame a name of 60 characters
 * still fits on the page, where beside it it was cut off. */
struct legend {
	PLINT n, opt[MAX_LEGEND], colour[MAX_LEGEND];
	const char *symbol[MAX_LEGEND];
	struct sibyl_plot_label text[MAX_LEGEND];
};

static void legend_add(struct legend *l, const char *text, PLINT colour, const char *symbol)
{
	if (l->n == MAX_LEGEND)
		return;
	l->opt[l->n] = symbol ? PL_LEGEND_SYMBOL : PL_LEGEND_LINE;
	l->colour[l->n] = colour;
	l->symbol[l->n] = symbol ? symbol : "";
	sibyl_plot_label(&l->text[l->n++], text);
}

static void legend_draw(struct legend *l)
{
	const char *text[MAX_LEGEND];
	PLINT style[MAX_LEGEND];
	PLFLT widths[MAX_LEGEND], scales[MAX_LEGEND], w, h;
	PLINT numbers[MAX_LEGEND];

	for (PLINT i = 0; i < l->n; i++)
		text[i] = l->text[i].s, style[i] = 1, widths[i] = 2, scales[i] = 1, numbers[i] = 1;
	plcol0(15);
	pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_INSIDE |
		 PL_POSITION_LEFT | PL_POSITION_TOP, 0.02, 0.02, 0.06, 0, 15, 1, l->n, 1, l->n,
		 l->opt, 1, 0.8, 2, 0,
		 l->colour, text, NULL, NULL, NULL, NULL, l->colour, style, widths, l->colour,
		 scales, numbers, l->symbol);
}

/* An envelope: each implementation's pieces in its own colour, named
 * in the legend (a name on the curve fell outside the frame at its
 * ends). */
static void draw_pieces(const struct frame *f, const struct sibyl_profile *p, struct legend *l)
{
	static const PLINT palette[] = { 9, 1, 2, 13, 8, 10, 3, 14, 4, 12 };
	struct sibyl_point *v = sibyl_xmalloc((p->npoints + 2) * sizeof(*v));

	for (size_t i = 0; i < p->npieces; i++) {
		const struct sibyl_piece *q = &p->pieces[i];
		size_t k = 0, colour = i;

		for (size_t j = 0; j < i && colour == i; j++)
			if (!strcmp(p->pieces[j].name, q->name))
				colour = j;
		PLINT c = palette[colour % (sizeof(palette) / sizeof(palette[0]))];

		v[k++] = (struct sibyl_point){ q->from, sibyl_profile_eval(p, q->from) };
		for (size_t j = 0; j < p->npoints; j++)
			if (p->points[j].x > q->from && p->points[j].x < q->to)
				v[k++] = p->points[j];
		v[k++] = (struct sibyl_point){ q->to, sibyl_profile_eval(p, q->to) };
		plcol0(c);
		draw_line(f, v, k);
		if (colour == i)
			legend_add(l, q->name, c, NULL);
	}
	free(v);
}

static void extend(double *lo, double *hi, const struct sibyl_point *v, size_t n,
		   const struct frame *f)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].x >= f->xmin && v[i].x <= f->xmax && v[i].y > 0)
			*lo = fmin(*lo, v[i].y), *hi = fmax(*hi, v[i].y);
}

/* The window: the profile's range, or the part an incomplete profile
 * covers (beyond it there is nothing to show but extrapolation); log
 * axes where the data span decades, unless linear. */
static void frame_of(const struct sibyl_profile *p, bool linear, struct frame *f)
{
	double a, b, lo = INFINITY, hi = 0;

	f->xmin = p->lo, f->xmax = p->hi;
	if (!p->complete && sibyl_profile_covered(p, &a, &b) && b > a)
		f->xmin = a, f->xmax = b;
	if (!(f->xmax > f->xmin))
		f->xmax = f->xmin + 1;
	extend(&lo, &hi, p->points, p->npoints, f);
	extend(&lo, &hi, p->samples, p->nsamples, f);
	if (!(hi > 0))
		lo = hi = 1;
	f->scale = sibyl_plot_time_unit(hi, &f->unit);
	f->logx = !linear && f->xmin > 0 && f->xmax / f->xmin >= LOG_SPAN;
	f->logy = !linear && hi / lo >= LOG_SPAN;
	f->ymin = f->logy ? lo / 1.3 : 0;
	f->ymax = f->logy ? hi * 1.3 : hi * 1.05;
}

static void draw_frame(const struct sibyl_profile *p, const struct frame *f)
{
	char ylabel[64], title[sizeof(struct sibyl_plot_label) + 160];
	struct sibyl_plot_label name, metric;
	double a, b;

	snprintf(ylabel, sizeof(ylabel), "time (%s)", f->unit);
	sibyl_plot_label(&name, p->name ? p->name : "profile");
	if (p->complete || !sibyl_profile_covered(p, &a, &b))
		snprintf(title, sizeof(title), "%s", name.s);
	else
		snprintf(title, sizeof(title), "%s (partial: covers %.15g to %.15g of %.15g to "
			 "%.15g)", name.s, a, b, p->lo, p->hi);
	/* Room on the left for the time labels, on the right for the last
	 * work metric's. */
	plcol0(15);
	pladv(0);
	plvpor(0.1, 0.94, 0.12, 0.9);
	/* A margin of 2% keeps the marks at either end whole. */
	double pad = (tx(f, f->xmax) - tx(f, f->xmin)) * 0.02;

	plwind(tx(f, f->xmin) - pad, tx(f, f->xmax) + pad,
	       f->logy ? log10(f->ymin * f->scale) : 0, ty(f, f->ymax));
	plbox(f->logx ? "bclnst" : "bcnst", 0, 0, f->logy ? "bclnstv" : "bcnstv", 0, 0);
	pllab(sibyl_plot_label(&metric, p->work_metric && *p->work_metric ? p->work_metric :
			       "work metric"), ylabel, title);
}

static void draw(const struct sibyl_profile *p, bool linear)
{
	struct frame f;
	struct legend l = { 0 };

	frame_of(p, linear, &f);
	draw_frame(p, &f);
	if (p->nsamples) {
		plcol0(1);
		draw_points(&f, p->samples, p->nsamples, "+");
		legend_add(&l, "samples", 1, "+");
	}
	plwidth(2);
	if (p->npieces) {
		draw_pieces(&f, p, &l);
	} else {
		plcol0(9);
		draw_line(&f, p->points, p->npoints);
		legend_add(&l, "profile", 9, NULL);
		plcol0(2);
		draw_points(&f, p->points, p->npoints, "o");
		legend_add(&l, "profile points", 2, "o");
	}
	plwidth(1);
	legend_draw(&l);
}

int sibyl_plot_profile(const struct sibyl_profile *p, const char *path, bool force,
		       bool linear, char *err, size_t errlen)
{
	struct sibyl_plot_file f;

	if (sibyl_plot_begin(&f, path, force, err, errlen) < 0)
		return -1;
	draw(p, linear);
	return sibyl_plot_end(&f, path, err, errlen);
}
