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

struct sibyl_profile *sibyl_envelope(const struct sibyl_profile *const *in, size_t n,
				     char *err, size_t errlen)
{
	size_t nb = 0;

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
	p->work_metric = sibyl_xstrdup(in[0]->work_metric ? in[0]->work_metric : "");
	p->lo = xs[0];
	p->hi = xs[nb - 1];
	p->complete = true;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(inputs, json_pack("{sssb}", "name", in[i]->name,
							"complete", in[i]->complete));
		p->complete &= in[i]->complete;
	}
	p->provenance = json_pack("{ssso}", "kind", "envelope", "inputs", inputs);
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

void sibyl_envelope_print(FILE *f, const struct sibyl_profile *env, bool json)
{
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < env->npieces; i++)
			json_array_append_new(a, json_pack("{sfsfss}", "from", env->pieces[i].from,
							   "to", env->pieces[i].to, "implementation",
							   env->pieces[i].name));
		json_dumpf(a, f, JSON_INDENT(1));
		fputc('\n', f);
		json_decref(a);
		return;
	}
	fprintf(f, "%16s %16s  %s\n", "FROM", "TO", "FASTEST");
	for (size_t i = 0; i < env->npieces; i++)
		fprintf(f, "%16.1f %16.1f  %s\n", env->pieces[i].from, env->pieces[i].to,
			env->pieces[i].name);
}
