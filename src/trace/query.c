/*
 * A report's options as the user typed them (globs, ids, times with
 * units, sort keys, a top-N) turned into a filter and summary options,
 * checked before any trace is read so that a typo is a usage error.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_ids(const char *const *s, size_t n, uint32_t **out, const char *what,
		     char *err, size_t errlen)
{
	*out = sibyl_xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s[i], &end, 10);
		if (!*s[i] || *end || errno || v == 0 || v > UINT32_MAX || s[i][0] == '-')
			return sibyl_seterr(err, errlen, "--%s: '%s' is not a process or thread id",
					    what, s[i]);
		(*out)[i] = (uint32_t)v;
	}
	return 0;
}

static int parse_sort(const char *list, int *keys, char *err, size_t errlen)
{
	size_t k = 0;
	char name[64];

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), p);
		if (k == 3 || (keys[k++] = n < 63 ? sibyl_sort_key_parse(name) : -1) < 0)
			return sibyl_seterr(err, errlen,
					    "--sort: '%s' is not a column name (total, self, calls, "
					    "mean, median, p90, p99, ..., name, library; at most 3)",
					    name);
		p += n + (p[n] == ',');
	}
	keys[k] = -1;
	return k ? 0 : sibyl_seterr(err, errlen, "--sort: no key given");
}

static int build(struct sibyl_report_selection *sel, const struct sibyl_trace *t,
		 const struct sibyl_report_query *q, char *err, size_t errlen)
{
	struct sibyl_call_filter *f = &sel->filter;

	f->keep = q->keep;
	f->nkeep = q->nkeep;
	f->hide = q->hide;
	f->nhide = q->nhide;
	if (sibyl_call_filter_check(f, err, errlen) ||
	    parse_ids(q->pids, q->npids, &sel->pids, "pid", err, errlen) ||
	    parse_ids(q->tids, q->ntids, &sel->tids, "tid", err, errlen))
		return -1;
	f->pids = sel->pids;
	f->npids = q->npids;
	f->tids = sel->tids;
	f->ntids = q->ntids;
	char why[512];

	if (q->min_duration && sibyl_duration_parse(q->min_duration, &f->min_ns, why, sizeof(why)))
		return sibyl_seterr(err, errlen, "--min-duration: %s", why);
	if (q->time_range && sibyl_time_range_parse(t, q->time_range, &f->from_ns, &f->to_ns,
						    why, sizeof(why)))
		return sibyl_seterr(err, errlen, "--time-range: %s", why);
	if (parse_sort(q->sort ? q->sort : "total", sel->opts.sort, err, errlen))
		return -1;
	if (q->top < 0)
		return sibyl_seterr(err, errlen, "--top: %ld is not a count of functions", q->top);
	sel->opts.top = (size_t)q->top;
	bool any = q->nkeep || q->nhide || q->npids || q->ntids || q->min_duration ||
		   q->time_range;

	sel->opts.filter = any ? f : NULL;
	return 0;
}

int sibyl_report_selection_init(struct sibyl_report_selection *sel, const struct sibyl_trace *t,
				const struct sibyl_report_query *q, char *err, size_t errlen)
{
	memset(sel, 0, sizeof(*sel));
	if (build(sel, t, q, err, errlen)) {
		sibyl_report_selection_free(sel);
		return -1;
	}
	return 0;
}

void sibyl_report_selection_free(struct sibyl_report_selection *sel)
{
	free(sel->pids);
	free(sel->tids);
	memset(sel, 0, sizeof(*sel));
}
