/* Whether a stored profile stands for an implementation as it runs now. */
#include "model/profile.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_SAMPLES 1000000

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* How it was planned: with which threads, on which device. */
static const char *unfit_planning(const struct sibyl_profile *p,
				  const struct sibyl_profile_want *w, char *why, size_t len)
{
	json_t *threads = json_object_get(p->provenance, "threads");
	const char *device = json_string_value(json_object_get(p->provenance, "device"));
	const char *platform = json_string_value(json_object_get(p->provenance, "platform"));

	if (json_is_integer(threads) && json_integer_value(threads) != (json_int_t)w->threads)
		return snprintf(why, len, "planned with %lld threads: give --threads %lld",
				(long long)json_integer_value(threads),
				(long long)json_integer_value(threads)), why;
	if (strcmp(or_empty(device), or_empty(w->device)) ||
	    strcmp(or_empty(platform), or_empty(w->platform)))
		return snprintf(why, len, "planned on platform '%s' device '%s': give the same "
				"--platform and --device", or_empty(platform), or_empty(device)), why;
	return NULL;
}

const char *sibyl_profile_unfit(const struct sibyl_profile *p, const struct sibyl_profile_want *w,
				char *why, size_t len)
{
	if (!p->npoints)
		return "no profile points to evaluate";
	if (!p->name || !*p->name || strcmp(p->name, w->name))
		return snprintf(why, len, "a profile of %s, not of %s",
				p->name && *p->name ? p->name : "an unnamed implementation",
				w->name), why;
	/* A profile that names no work metric (written by hand) is taken as
	 * the implementation's. */
	if (p->work_metric && *p->work_metric && strcmp(p->work_metric, or_empty(w->work_metric)))
		return snprintf(why, len, "planned for the work metric '%s', and %s's is now '%s'",
				p->work_metric, w->name, or_empty(w->work_metric)), why;
	const char *unfit = unfit_planning(p, w, why, len);
	json_t *samples = json_object_get(p->stats, "samples");

	if (unfit)
		return unfit;
	if (!(p->lo >= (double)w->min_metric && p->hi <= (double)w->max_metric &&
	      p->lo == floor(p->lo) && p->hi == floor(p->hi)))
		return snprintf(why, len, "its range %g:%g is not within %s's %" PRIu64 ":%" PRIu64,
				p->lo, p->hi, w->name, w->min_metric, w->max_metric), why;
	if (samples && !(json_is_integer(samples) && json_integer_value(samples) >= 1 &&
			 json_integer_value(samples) <= MAX_SAMPLES))
		return "stats.samples is not a sample count between 1 and 1000000";
	return NULL;
}
