/* Profile plots with PLplot. */
#define _GNU_SOURCE
#include "planner/plot.h"
#include "core/fs.h"
#include "core/output.h"

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *device_for(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		return "pngcairo";
	if (dot && !strcasecmp(dot, ".svg"))
		return "svg";
	return NULL;
}

/*
 * A label drawn from a profile file (its name, work metric, the winners of
 * an envelope) is untrusted text: PLplot keeps text in fixed buffers (its
 * SVG driver crashed on 1,500 characters) and reads '#' as the start of an
 * escape sequence.  So a label is cut to LABEL_CHARS characters ("..."
 * marks the cut), a '#' is doubled (PLplot's literal '#'), and control
 * characters become spaces.  jansson gives valid UTF-8: a character is
 * cut whole.
 */
#define LABEL_CHARS 60

struct label {
	char s[LABEL_CHARS * 4 + 8];	/* 4 bytes a character ('##' is 2) */
};

static const char *label(struct label *l, const char *text)
{
	size_t n = 0, chars = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		bool starts_char = (*p & 0xc0) != 0x80;

		if ((starts_char && chars++ == LABEL_CHARS) || n + 4 + 4 > sizeof(l->s)) {
			memcpy(l->s + n, "...", 3);
			n += 3;
			break;
		}
		if (*p == '#')
			l->s[n++] = '#';
		l->s[n++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
	}
	l->s[n] = '\0';
	return l->s;
}

/* Seconds, milliseconds or microseconds, whichever reads best. */
static double time_unit(double ymax, const char **name)
{
	if (ymax < 1e-3) {
		*name = "microseconds";
		return 1e6;
	}
	if (ymax < 1) {
		*name = "milliseconds";
		return 1e3;
	}
	*name = "seconds";
	return 1;
}

static void draw_points(const struct sibyl_point *v, size_t n, double scale, int symbol)
{
	PLFLT *x = malloc((n + 1) * sizeof(*x)), *y = malloc((n + 1) * sizeof(*y));

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
		struct sibyl_point *v = malloc((p->npoints + 2) * sizeof(*v));

		v[k++] = (struct sibyl_point){ q->from, sibyl_profile_eval(p, q->from) };
		for (size_t j = 0; j < p->npoints; j++)
			if (p->points[j].x > q->from && p->points[j].x < q->to)
				v[k++] = p->points[j];
		v[k++] = (struct sibyl_point){ q->to, sibyl_profile_eval(p, q->to) };
		plcol0(palette[colour % (sizeof(palette) / sizeof(palette[0]))]);
		draw_points(v, k, scale, 0);
		/* Name the winner above the middle of its piece. */
		double mid = (q->from + q->to) / 2;
		struct label name;

		plptex(mid, sibyl_profile_eval(p, mid) * scale, 1, 0, 0.5, label(&name, q->name));
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
	double scale = time_unit(ymax > 0 ? ymax : 1, &unit);
	char ylabel[64], title[sizeof(struct label) + 16];
	struct label name, metric;

	snprintf(ylabel, sizeof(ylabel), "time (%s)", unit);
	snprintf(title, sizeof(title), "%s%s", label(&name, p->name ? p->name : "profile"),
		 p->complete ? "" : " (partial)");
	plcol0(15);
	plenv(xmin, xmax, 0, (ymax > 0 ? ymax : 1) * scale * 1.05, 0, 0);
	pllab(label(&metric, p->work_metric && *p->work_metric ? p->work_metric : "work metric"),
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
	const char *dev = device_for(path);
	struct sibyl_output out;

	if (!dev)
		return snprintf(err, errlen, "%s: the plot must end in .png or .svg", path), -1;
	if (sibyl_refuse_overwrite(path, force, err, errlen))
		return -1;
	if (sibyl_output_open(&out, path, 0666) < 0) {
		snprintf(err, errlen, "%s: cannot write there: %s", path, strerror(errno));
		return -1;
	}
	close(out.fd);	/* PLplot writes the temporary by name */
	out.fd = -1;
	plsdev(dev);
	plsfnam(out.tmp);
	plscolbg(255, 255, 255);
	plscol0(15, 0, 0, 0);   /* axes and labels: black on white */
	plscol0(2, 0, 140, 0);  /* profile points: dark green, not yellow */
	plspage(0, 0, 1000, 700, 0, 0);
	plinit();
	draw(p);
	plend();
	if (sibyl_output_commit(&out)) {
		snprintf(err, errlen, "%s: cannot put the plot into place: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
