/* Each work metric's first call in a replay's worker (first_calls.h). */
#include "planner/first_calls.h"
#include "core/alloc.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool sibyl_metrics_met_add(struct sibyl_metrics_met *m, uint64_t metric)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i] == metric)
			return true;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->v = sibyl_xreallocarray(m->v, m->cap, sizeof(*m->v));
	}
	m->v[m->n++] = metric;
	return false;
}

bool sibyl_first_runs_met(struct sibyl_first_runs *f, uint64_t metric)
{
	return sibyl_metrics_met_add(&f->met, metric);
}

void sibyl_first_runs_note(struct sibyl_first_runs *f, uint64_t metric, double seconds,
			   size_t sample)
{
	if (sibyl_first_runs_met(f, metric))
		return;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->v = sibyl_xreallocarray(f->v, f->cap, sizeof(*f->v));
	}
	f->v[f->n++] = (struct sibyl_first_run){ metric, seconds, sample, NAN };
}

void sibyl_first_runs_lost(struct sibyl_first_runs *f, uint64_t metric, size_t sample)
{
	sibyl_first_runs_met(f, metric);
	if (sample == SIZE_MAX)
		return;
	f->lost = sibyl_xreallocarray(f->lost, f->nlost + 1, sizeof(*f->lost));
	f->lost[f->nlost++] = (struct sibyl_lost_run){ sample, metric };
}

/* The median time of the samples at metric m but s[skip] and those
 * leaving (out); NAN when none. */
static double others_median(const struct sibyl_point *s, size_t n, uint64_t m, size_t skip,
			    const bool *out, double *buf)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].x == (double)m && i != skip && !out[i])
			buf[k++] = s[i].y;
	if (!k)
		return NAN;
	gsl_sort(buf, 1, k);
	return gsl_stats_median_from_sorted_data(buf, 1, k);
}

/* The lost runs' samples leave, but a metric's only one: at an edge, a
 * replay of one pass may time that call alone, and the profile would
 * lose the end of its range. */
static void mark_lost(const struct sibyl_first_runs *f, const struct sibyl_point *s, size_t n,
		      bool *out)
{
	for (size_t i = 0; i < f->nlost; i++) {
		size_t k = f->lost[i].sample;

		for (size_t j = 0; k < n && j < n && !out[k]; j++)
			out[k] = j != k && s[j].x == s[k].x;
	}
}

/* s[0..*n) without those leaving, in their order. */
static void drop_samples(const bool *out, struct sibyl_point *s, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (!out[i])
			s[k++] = s[i];
	*n = k;
}

bool sibyl_first_runs_apart(const struct sibyl_first_runs *f, uint64_t metric)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->v[k].metric == metric)
			return true;
	for (size_t k = 0; k < f->nlost; k++)
		if (f->lost[k].metric == metric)
			return true;
	return false;
}

size_t sibyl_first_runs_split(struct sibyl_first_runs *f, struct sibyl_point *s, size_t *n,
			      double threshold)
{
	double *buf = sibyl_xmalloc((*n + 1) * sizeof(*buf));
	double *excess = sibyl_xmalloc((f->n + 1) * sizeof(*excess));
	bool *out = sibyl_xcalloc(*n + 1, sizeof(*out));
	size_t kept = 0;

	mark_lost(f, s, *n, out);
	for (size_t i = 0; i < f->n; i++) {
		f->v[i].warm = others_median(s, *n, f->v[i].metric, f->v[i].sample, out, buf);
		if (f->v[i].warm > 0) {
			excess[kept] = f->v[i].seconds / f->v[i].warm - 1;
			f->v[kept++] = f->v[i];
		}
	}
	f->n = kept;
	gsl_sort(excess, 1, kept);
	/* A first call no dearer than the others, beyond one run's spread, is
	 * a sample like them: charging each metric's first call one run's
	 * difference would add noise to every call at a metric met once. */
	if (!kept || gsl_stats_median_from_sorted_data(excess, 1, kept) <= threshold)
		f->n = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].sample < *n)
			out[f->v[i].sample] = true;
	drop_samples(out, s, n);
	free(buf);
	free(excess);
	free(out);
	return f->n;
}

static int by_metric(const void *a, const void *b)
{
	const struct sibyl_first_run *x = a, *y = b;

	return (x->metric > y->metric) - (x->metric < y->metric);
}

struct json_t *sibyl_first_runs_json(const struct sibyl_first_runs *f, const char *measured)
{
	if (!f->n)
		return NULL;
	struct sibyl_first_run *v = sibyl_xmalloc(f->n * sizeof(*v));
	json_t *metrics = json_array();

	memcpy(v, f->v, f->n * sizeof(*v));
	qsort(v, f->n, sizeof(*v), by_metric);
	for (size_t i = 0; i < f->n; i++)
		json_array_append_new(metrics, json_pack("[Iff]", (json_int_t)v[i].metric,
							 v[i].seconds, v[i].warm));
	free(v);
	/* base: the excess is in the points' time base (profile.h), which
	 * files written before it was had not. */
	return json_pack("{ssssso}", "measured", measured, "base", "points", "metrics", metrics);
}

struct json_t *sibyl_first_runs_guided(const uint64_t *metrics, const double *seconds, size_t n,
				       const struct sibyl_point *others, size_t nothers,
				       double threshold)
{
	struct sibyl_first_runs f = { 0 };
	size_t ns = nothers;
	struct sibyl_point *s = sibyl_xmalloc((ns + 1) * sizeof(*s));

	memcpy(s, others, ns * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		sibyl_first_runs_note(&f, metrics[i], seconds[i], SIZE_MAX);
	sibyl_first_runs_split(&f, s, &ns, threshold);
	json_t *j = sibyl_first_runs_json(&f, "guided: each work metric's first run in the "
					  "planning worker, before its first sample's runs, "
					  "beside the median of its samples' runs timed alike "
					  "(under the speed guard, their unguarded rounds)");

	sibyl_first_runs_free(&f);
	free(s);
	return j;
}

void sibyl_first_runs_free(struct sibyl_first_runs *f)
{
	free(f->v);
	free(f->met.v);
	free(f->lost);
	memset(f, 0, sizeof(*f));
}
