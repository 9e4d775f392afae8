/* The timing loop of `sibyl device`: host clock around each command,
 * device clock from the command's event. */
#include "ocl/device/device_bench.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdlib.h>

uint64_t sibyl_bench_now(const struct sibyl_cl_bench *b)
{
	return b->tsc ? sibyl_tsc() : sibyl_mono_ns();
}

double sibyl_bench_seconds(const struct sibyl_cl_bench *b, uint64_t delta)
{
	return (b->tsc ? sibyl_tsc_delta_ns(&b->cal, delta) : (double)delta) * 1e-9;
}

void sibyl_bench_progress(const struct sibyl_cl_bench *b, const char *fmt, ...)
{
	char line[128];
	va_list ap;

	if (!b->line)
		return;
	if (!fmt) {
		sibyl_progress_done(b->line);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sibyl_progress_phase(b->line, "%s", line);
}

static int event_span(cl_event ev, cl_profiling_info from, double *span, double *exec)
{
	cl_ulong t_from = 0, t_start = 0, t_end = 0;

	if (clGetEventProfilingInfo(ev, from, sizeof(t_from), &t_from, NULL) != CL_SUCCESS ||
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t_start), &t_start,
				    NULL) != CL_SUCCESS ||
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t_end), &t_end,
				    NULL) != CL_SUCCESS)
		return -1;
	*span = t_end >= t_from ? (double)(t_end - t_from) * 1e-9 : 0;
	*exec = t_end >= t_start ? (double)(t_end - t_start) * 1e-9 : 0;
	return 0;
}

/* One timed run: host seconds, and event spans when profiled. */
static cl_int run_once(struct sibyl_cl_bench *b, cl_command_queue q, sibyl_enqueue_fn fn,
		       void *arg, cl_profiling_info from, double *host, double *span,
		       double *exec, bool *profiled)
{
	cl_event ev = NULL;
	uint64_t t0 = sibyl_bench_now(b);
	cl_int err = fn(q, arg, &ev);

	if (err == CL_SUCCESS)
		err = clFinish(q);
	*host = sibyl_bench_seconds(b, sibyl_bench_now(b) - t0);
	*profiled = err == CL_SUCCESS && ev && q == b->q && !event_span(ev, from, span, exec);
	if (ev)
		clReleaseEvent(ev);
	return err;
}

int sibyl_bench_time(struct sibyl_cl_bench *b, cl_command_queue q, sibyl_enqueue_fn fn,
		     void *arg, unsigned reps, cl_profiling_info from, const char *what,
		     struct sibyl_timing *out, struct sibyl_stat *exec)
{
	double *host = calloc(3 * (size_t)reps + 3, sizeof(double));
	double *span = host + reps + 1, *ex = span + reps + 1;
	unsigned nd = 0;
	bool profiled;
	cl_int err;

	if (!host)
		return sibyl_seterr_errno(b->err, b->errlen, "device: %s", what);
	/* The warm-up pays for first-touch allocation and lazy setup. */
	err = run_once(b, q, fn, arg, from, &host[0], &span[0], &ex[0], &profiled);
	for (unsigned i = 0; i < reps && err == CL_SUCCESS; i++) {
		err = run_once(b, q, fn, arg, from, &host[i], &span[nd], &ex[nd], &profiled);
		nd += profiled;
	}
	if (err != CL_SUCCESS) {
		free(host);
		return sibyl_seterr(b->err, b->errlen, "device: %s: %s", what,
				    sibyl_cl_error_name(err));
	}
	out->host = sibyl_stat_of(host, reps);
	if (exec)
		*exec = sibyl_stat_of(ex, nd);
	out->device = sibyl_stat_of(span, nd);
	free(host);
	return 0;
}
