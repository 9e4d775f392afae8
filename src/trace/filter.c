/*
 * Which calls a report counts: function and library globs (uftrace's
 * -F/-N, with uftrace's FUNC@LIB spelling for the library), processes,
 * threads, a time range and a minimum duration.  Times are parsed here
 * with their units, relative to the trace's start, as uftrace does.
 */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/log.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "12", "1.5ms", "3s": ns.  *relative: a unit was given. */
static int parse_time(const char *s, size_t n, uint64_t *ns, bool *relative)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char buf[64], *end;
	double v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end == buf || errno || !isfinite(v) || v < 0 || buf[0] == '-')
		return -1;
	*relative = *end != '\0';
	for (size_t i = 0; *relative && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].scale;
			end += strlen(end);
		}
	if (*end || v >= 1.8e19)
		return -1;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

int sibyl_duration_parse(const char *text, uint64_t *ns, char *err, size_t errlen)
{
	bool unit;

	if (parse_time(text, strlen(text), ns, &unit))
		return sibyl_seterr(err, errlen,
				    "'%s' is not a duration (a number with ns, us, ms or s)", text);
	return 0;
}

/* The trace's first moment: meta.json's start, else its first process's
 * (0 without a trace: checking the syntax only). */
static uint64_t trace_start(const struct sibyl_trace *t)
{
	uint64_t start = t ? sibyl_trace_meta(t)->start_ns : 0;

	for (size_t i = 0; t && !start && i < sibyl_trace_process_count(t); i++)
		start = sibyl_trace_process(t, i)->start_ns;
	return start;
}

static int range_end(const struct sibyl_trace *t, const char *s, size_t n, uint64_t *ns)
{
	bool relative;

	if (parse_time(s, n, ns, &relative))
		return -1;
	if (relative)
		*ns += trace_start(t);
	return 0;
}

int sibyl_time_range_parse(const struct sibyl_trace *t, const char *text, uint64_t *from_ns,
			   uint64_t *to_ns, char *err, size_t errlen)
{
	const char *tilde = strchr(text, '~');
	size_t n1 = tilde ? (size_t)(tilde - text) : 0;

	*from_ns = *to_ns = 0;
	if (!tilde || (n1 == 0 && !tilde[1]) ||
	    (n1 && range_end(t, text, n1, from_ns)) ||
	    (tilde[1] && range_end(t, tilde + 1, strlen(tilde + 1), to_ns)) ||
	    (*to_ns && *to_ns < *from_ns))
		return sibyl_seterr(err, errlen,
				    "'%s' is not START~END (times with a unit since the trace's "
				    "start, e.g. 10ms~1.5s, or ns as exported; one may be empty)",
				    text);
	return 0;
}

static bool glob_match(const char *glob, const struct sibyl_trace_function *fn)
{
	const char *at = strrchr(glob, '@');
	char func[512];
	size_t n = at ? (size_t)(at - glob) : strlen(glob);

	if (!at)
		return !fnmatch(glob, fn->name, 0);
	if (n >= sizeof(func))
		return false;
	memcpy(func, glob, n);
	func[n] = '\0';
	return !fnmatch(func, fn->name, 0) && !fnmatch(at + 1, fn->library, 0);
}

static int check_globs(const char *const *g, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const char *at = strrchr(g[i], '@');

		if (!g[i][0] || (at && (at == g[i] || !at[1])))
			return sibyl_seterr(err, errlen,
					    "'%s' is not FUNC or FUNC@LIB (globs; '*@libz*' "
					    "for a whole library)", g[i]);
		if (at && (size_t)(at - g[i]) >= 512)
			return sibyl_seterr(err, errlen, "'%.40s...' is too long", g[i]);
	}
	return 0;
}

int sibyl_call_filter_check(const struct sibyl_call_filter *f, char *err, size_t errlen)
{
	return check_globs(f->keep, f->nkeep, err, errlen) ||
	       check_globs(f->hide, f->nhide, err, errlen) ? -1 : 0;
}

bool sibyl_call_filter_function(const struct sibyl_call_filter *f,
				const struct sibyl_trace_function *fn)
{
	bool keep = f->nkeep == 0;

	for (size_t i = 0; !keep && i < f->nkeep; i++)
		keep = glob_match(f->keep[i], fn);
	for (size_t i = 0; keep && i < f->nhide; i++)
		keep = !glob_match(f->hide[i], fn);
	return keep;
}

static bool listed(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return n == 0;
}

bool sibyl_call_filter_call(const struct sibyl_call_filter *f, const struct sibyl_trace *t,
			    const struct sibyl_trace_call *c)
{
	const struct sibyl_trace_thread *th = sibyl_trace_thread(t, c->thread);

	return c->duration_ns >= f->min_ns && c->start_ns >= f->from_ns &&
	       (!f->to_ns || c->end_ns <= f->to_ns) && listed(f->pids, f->npids, th->pid) &&
	       listed(f->tids, f->ntids, th->tid);
}

bool sibyl_call_filter_match(const struct sibyl_call_filter *f, const struct sibyl_trace *t,
			     const struct sibyl_trace_call *c)
{
	return sibyl_call_filter_call(f, t, c) && sibyl_call_filter_function(f, c->function);
}
