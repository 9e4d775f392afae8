/* The lowest envelope of piecewise-linear profiles. */
#include "planner/envelope.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"

#include <gsl/gsl_sort.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	struct sibyl_profile *p;
	size_t capp, capq;
};

static double first_x(const struct sibyl_profile *p)
{
	return p->points[0].x;
}

static double last_x(const struct sibyl_profile *p)
{
	return p->points[p->npoints - 1].x;
}

static void add_point(struct builder *b, double x, double y)
{
	struct sibyl_profile *p = b->p;

	if (p->npoints && p->points[p->npoints - 1].x == x && p->points[p->npoints - 1].y == y)
		return;
	if (p->npoints == b->capp)
		p->points = sibyl_xreallocarray(p->points, b->capp = 2 * b->capp + 16,
						sizeof(*p->points));
	p->points[p->npoints++] = (struct sibyl_point){ x, y };
}

static void add_piece(struct builder *b, double from, double to, const char *name)
{
	struct sibyl_profile *p = b->p;

	if (p->npieces && !strcmp(p->pieces[p->npieces - 1].name, name)) {
		p->pieces[p->npieces - 1].to = to;
		return;
	}
	if (p->npieces == b->capq)
		p->pieces = sibyl_xreallocarray(p->pieces, b->capq = 2 * b->capq + 8, sizeof(*p->pieces));
	p->pieces[p->npieces++] = (struct sibyl_piece){ from, to, sibyl_xstrdup(name) };
}

/* Between two consecutive breakpoints every covering profile is a line;
 * split where two of them cross and let the lowest win each part. */
static void envelope_between(struct builder *b, const struct sibyl_profile *const *in,
			     size_t n, double lo, double hi)
{
	double mid = (lo + hi) / 2, *cuts = sibyl_xmalloc((n * n + 2) * sizeof(*cuts));
	size_t k = 0;

	cuts[k++] = lo;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (mid < first_x(in[i]) || mid > last_x(in[i]) || mid < first_x(in[j]) ||
			    mid > last_x(in[j]))
				continue;
			double di = sibyl_profile_eval(in[i], lo) - sibyl_profile_eval(in[j], lo);
			double dh = sibyl_profile_eval(in[i], hi) - sibyl_profile_eval(in[j], hi);

			if ((di < 0 && dh > 0) || (di > 0 && dh < 0))
				cuts[k++] = lo + (hi - lo) * di / (di - dh);
		}
	cuts[k++] = hi;
	gsl_sort(cuts, 1, k);
	for (size_t c = 0; c + 1 < k; c++) {
		double s = cuts[c], t = cuts[c + 1], m = (s + t) / 2, best = INFINITY;
		size_t w = 0;

		if (t <= s)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (m < first_x(in[i]) || m > last_x(in[i]))
				continue;
			double v = sibyl_profile_eval(in[i], m);

			if (v < best)
				best = v, w = i;
		}
		add_point(b, s, sibyl_profile_eval(in[w], s));
		add_point(b, t, sibyl_profile_eval(in[w], t));
		add_piece(b, s, t, in[w]->name && *in[w]->name ? in[w]->name : "?");
	}
	free(cuts);
}

/*
 * How precisely a profile knows its times, % of the time: the noise
 * floor a guided plan measured, or else the median distance of its
 * samples from it (measurement noise and what its lines miss, as one
 * sample sees them).  0 when it keeps neither: no tie can be told.
 */
static double noise_pct(const struct sibyl_profile *p)
{
	json_t *floor = p->coverage ? json_object_get(p->coverage, "noise_floor_pct") : NULL;
	size_t k = 0;

	if (json_is_number(floor) && json_number_value(floor) >= 0)
		return json_number_value(floor);
	double *r = sibyl_xmalloc((p->nsamples + 1) * sizeof(*r)), med = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		double y = sibyl_profile_eval(p, p->samples[i].x);

		if (y > 0 && isfinite(p->samples[i].y))
			r[k++] = 100 * fabs(p->samples[i].y - y) / y;
	}
	if (k) {
		gsl_sort(r, 1, k);
		med = k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
	}
	free(r);
	return med;
}

/* The most, in % of a's time, that a beats b by over [from, to] where
 * both cover it: between breakpoints both are lines, so their ratio is
 * monotonic and its extremes lie at the breakpoints. */
static double margin_pct(const struct sibyl_profile *a, const struct sibyl_profile *b,
			 double from, double to)
{
	const struct sibyl_profile *both[2] = { a, b };
	double lo = fmax(from, fmax(first_x(a), first_x(b)));
	double hi = fmin(to, fmin(last_x(a), last_x(b))), best = 0;

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i <= both[k]->npoints + 1; i++) {
			double x = i == 0 ? lo : i > both[k]->npoints ? hi : both[k]->points[i - 1].x;
			double ya = sibyl_profile_eval(a, x), yb = sibyl_profile_eval(b, x);

			if (x >= lo && x <= hi && ya > 0)
				best = fmax(best, 100 * (yb - ya) / ya);
		}
	return best;
}

static const struct sibyl_profile *named(const struct sibyl_profile *const *in, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(in[i]->name && *in[i]->name ? in[i]->name : "?", name))
			return in[i];
	return NULL;
}

/*
 * Each change of winner, and whether it is a tie: when on either side
 * the winner there beats the other by no more than their joint noise
 * (the root of the sum of squares), the measurements cannot tell where,
 * or whether, one overtakes the other.
 */
static json_t *crossovers(const struct sibyl_profile *env, const struct sibyl_profile *const *in,
			  size_t n)
{
	json_t *out = json_array();

	for (size_t k = 0; k + 1 < env->npieces; k++) {
		const struct sibyl_piece *l = &env->pieces[k], *r = &env->pieces[k + 1];
		const struct sibyl_profile *a = named(in, n, l->name), *b = named(in, n, r->name);

		if (!a || !b || a == b)
			continue;
		double noise = hypot(noise_pct(a), noise_pct(b));
		double left = margin_pct(a, b, l->from, l->to), right = margin_pct(b, a, r->from, r->to);

		json_array_append_new(out, json_pack("{sfsssssfsfsfsb}", "at", l->to, "from", l->name,
						     "to", r->name, "left_margin_pct", left,
						     "right_margin_pct", right, "noise_pct", noise,
						     "tie", fmin(left, right) <= noise));
	}
	return out;
}

/* Profiles of different work metrics measure different things: their
 * times at one metric are not of the same work.  One naming none is
 * taken as the others'. */
static int same_metric(const struct sibyl_profile *const *in, size_t n, char *err,
		       size_t errlen)
{
	const struct sibyl_profile *first = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!in[i]->work_metric || !*in[i]->work_metric)
			continue;
		if (first && strcmp(first->work_metric, in[i]->work_metric))
			return sibyl_seterr(err, errlen, "%s is measured in '%s' and %s in '%s': an "
					    "envelope compares profiles of one work metric",
					    first->name ? first->name : "?", first->work_metric,
					    in[i]->name ? in[i]->name : "?", in[i]->work_metric);
		if (!first)
			first = in[i];
	}
	return 0;
}

static const char *metric_of(const struct sibyl_profile *const *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in[i]->work_metric && *in[i]->work_metric)
			return in[i]->work_metric;
	return "";
}

struct sibyl_profile *sibyl_envelope(const struct sibyl_profile *const *in, size_t n,
				     char *err, size_t errlen)
{
	size_t nb = 0;

	if (same_metric(in, n, err, errlen))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!in[i]->npoints) {
			sibyl_seterr(err, errlen, "profile %zu (%s) has samples but no points: its "
				     "planning stopped before the first segment", i + 1,
				     in[i]->name ? in[i]->name : "?");
			return NULL;
		}
		nb += in[i]->npoints;
	}
	double *xs = sibyl_xmalloc((nb + 1) * sizeof(*xs));

	nb = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->npoints; j++)
			xs[nb++] = in[i]->points[j].x;
	gsl_sort(xs, 1, nb);
	struct builder b = { sibyl_xcalloc(1, sizeof(struct sibyl_profile)), 0, 0 };
	struct sibyl_profile *p = b.p;
	json_t *inputs = json_array();

	for (size_t k = 0; k + 1 < nb; k++) {
		double lo = xs[k], hi = xs[k + 1], mid = (lo + hi) / 2;
		bool covered = false;

		if (hi <= lo)
			continue;
		for (size_t i = 0; i < n; i++)
			covered |= mid >= first_x(in[i]) && mid <= last_x(in[i]);
		if (!covered) {
			sibyl_seterr(err, errlen, "no profile covers work metrics %g..%g", lo, hi);
			free(xs);
			json_decref(inputs);
			sibyl_profile_free(p);
			return NULL;
		}
		envelope_between(&b, in, n, lo, hi);
	}
	p->name = sibyl_xstrdup("envelope");
	p->work_metric = sibyl_xstrdup(metric_of(in, n));
	p->lo = xs[0];
	p->hi = xs[nb - 1];
	p->complete = true;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(inputs, json_pack("{sssb}", "name", in[i]->name,
							"complete", in[i]->complete));
		p->complete &= in[i]->complete;
	}
	p->provenance = json_pack("{sssoso}", "kind", "envelope", "inputs", inputs,
				  "crossovers", crossovers(p, in, n));
	free(xs);
	return p;
}

struct sibyl_profile *sibyl_envelope_files(const char *const *paths, size_t n,
					   const char *output, bool force, char *err,
					   size_t errlen)
{
	struct sibyl_profile **in = sibyl_xcalloc(n ? n : 1, sizeof(*in)), *env = NULL;
	bool loaded = sibyl_refuse_overwrite(output, force, err, errlen) == 0;

	for (size_t i = 0; loaded && i < n; i++)
		loaded = (in[i] = sibyl_profile_load(paths[i], err, errlen)) != NULL;
	if (loaded)
		env = sibyl_envelope((const struct sibyl_profile *const *)in, n, err, errlen);
	if (env && sibyl_profile_save(env, output, force, err, errlen)) {
		sibyl_profile_free(env);
		env = NULL;
	}
	for (size_t i = 0; i < n; i++)
		sibyl_profile_free(in[i]);
	free(in);
	return env;
}

/* The implementations a piece ties with at its ends (a new reference). */
static json_t *ties_of(json_t *cross, const struct sibyl_piece *q)
{
	json_t *t = json_array(), *c;
	size_t i;

	json_array_foreach(cross, i, c) {
		double at = json_number_value(json_object_get(c, "at"));

		if (!json_is_true(json_object_get(c, "tie")))
			continue;
		if (at == q->to)
			json_array_append(t, json_object_get(c, "to"));
		else if (at == q->from)
			json_array_append(t, json_object_get(c, "from"));
	}
	return t;
}

/* A line for each crossover within the noise. */
static void print_ties(FILE *f, json_t *cross)
{
	size_t i;
	json_t *c;

	json_array_foreach(cross, i, c) {
		if (!json_is_true(json_object_get(c, "tie")))
			continue;
		fprintf(f, "tie at %.1f: %s and %s are within the noise (%.1f%%): %s is at most "
			"%.1f%% faster before, %s %.1f%% after\n",
			json_number_value(json_object_get(c, "at")),
			json_string_value(json_object_get(c, "from")),
			json_string_value(json_object_get(c, "to")),
			json_number_value(json_object_get(c, "noise_pct")),
			json_string_value(json_object_get(c, "from")),
			json_number_value(json_object_get(c, "left_margin_pct")),
			json_string_value(json_object_get(c, "to")),
			json_number_value(json_object_get(c, "right_margin_pct")));
	}
}

void sibyl_envelope_print(FILE *f, const struct sibyl_profile *env, bool json)
{
	json_t *cross = env->provenance ? json_object_get(env->provenance, "crossovers") : NULL;

	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < env->npieces; i++)
			json_array_append_new(a, json_pack("{sfsfssso}", "from", env->pieces[i].from,
							   "to", env->pieces[i].to, "implementation",
							   env->pieces[i].name, "ties_with",
							   ties_of(cross, &env->pieces[i])));
		json_dumpf(a, f, JSON_INDENT(1));
		fputc('\n', f);
		json_decref(a);
		return;
	}
	fprintf(f, "%16s %16s  %s\n", "FROM", "TO", "FASTEST");
	for (size_t i = 0; i < env->npieces; i++)
		fprintf(f, "%16.1f %16.1f  %s\n", env->pieces[i].from, env->pieces[i].to,
			env->pieces[i].name);
	print_ties(f, cross);
}
