/*
 * Which number of a traced call a profile's work metric stands for.  A
 * profile is measured in one metric; the trace must have recorded that
 * metric for the function, or the prediction (src/predict) and the
 * planner's trace-guided plans (src/planner/call_mix.c) would compare
 * different things.  Nothing is guessed.
 */
#include "sibyl/trace.h"
#include "core/log.h"

#include <string.h>

bool sibyl_work_byte_metric(const char *metric, enum sibyl_work_source *source)
{
	static const struct { const char *name; enum sibyl_work_source source; } bytes[] = {
		{ "input bytes", SIBYL_WORK_IN_BYTES },
		{ "output bytes", SIBYL_WORK_OUT_BYTES },
		{ "input+output bytes", SIBYL_WORK_INOUT_BYTES },
	};

	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
		if (metric && !strcmp(metric, bytes[i].name)) {
			*source = bytes[i].source;
			return true;
		}
	return false;
}

int sibyl_work_source_of(const struct sibyl_trace_function *f, const char *metric,
			 const char *what, enum sibyl_work_source *source, char *err,
			 size_t errlen)
{
	if (!metric || !*metric)
		return sibyl_seterr(err, errlen, "%s: the profile does not say what its work metric is "
				    "(\"work_metric\"); refusing to guess", what);
	if (sibyl_work_byte_metric(metric, source))
		return 0;
	*source = SIBYL_WORK_DECLARED;
	if (f->work_metric_conflict)
		return sibyl_seterr(err, errlen, "%s: the trace declares two different work metrics for it",
				    f->name);
	if (!f->work_metric)
		return sibyl_seterr(err, errlen, "%s: %s is measured in '%s', but the trace does not say what "
				    "%s's work counts (declare it in the definition file: "
				    "LIB::%s::metric { %s })", f->name, what, metric, f->name, f->name,
				    metric);
	if (strcmp(f->work_metric, metric))
		return sibyl_seterr(err, errlen, "%s: the trace's work counts '%s' but %s is measured in '%s'",
				    f->name, f->work_metric, what, metric);
	return 0;
}

double sibyl_call_work(const struct sibyl_trace_call *c, enum sibyl_work_source source)
{
	switch (source) {
	case SIBYL_WORK_IN_BYTES:
		return (double)c->in_bytes;
	case SIBYL_WORK_OUT_BYTES:
		return (double)c->out_bytes;
	case SIBYL_WORK_INOUT_BYTES:
		return (double)c->in_bytes + (double)c->out_bytes;
	default:
		return c->work;
	}
}
