/*
 * `sibyl device` measurements other than bandwidth: command latency,
 * smallest-transfer latencies, kernel launch overhead and the cost of
 * event profiling, plus the provenance recorded with them.
 */
#define _GNU_SOURCE
#include "ocl/device/device_bench.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Latencies are cheap and noisy: they take this many times --repeat. */
#define LATENCY_REPEAT_FACTOR 5

static const char empty_source[] = "__kernel void sibyl_empty(void) {}\n";

static cl_int enqueue_marker(cl_command_queue q, void *arg, cl_event *ev)
{
	(void)arg;
	return clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
}

static cl_int enqueue_empty(cl_command_queue q, void *arg, cl_event *ev)
{
	size_t one = 1;

	return clEnqueueNDRangeKernel(q, (cl_kernel)arg, 1, NULL, &one, NULL, 0, NULL, ev);
}

/*
 * Wake the runtime up before the first timed command: PoCL's worker
 * threads sleep when idle, and the first few hundred microseconds of
 * round trips after context creation come out twice as slow.
 */
static void warm_up(struct sibyl_cl_bench *b)
{
	uint64_t end = sibyl_mono_ns() + 20 * 1000 * 1000;

	while (sibyl_mono_ns() < end) {
		if (clEnqueueMarkerWithWaitList(b->q, 0, NULL, NULL) != CL_SUCCESS ||
		    clFinish(b->q) != CL_SUCCESS)
			break;
	}
}

static int measure_latencies(struct sibyl_cl_bench *b, struct sibyl_device_profile *p,
			     unsigned reps)
{
	static const char *what[SIBYL_DIR_COUNT] = {
		"host->device latency", "device->host latency", "device->device latency",
		"mapped host->device latency", "mapped device->host latency" };
	struct sibyl_transfer t;
	cl_int err;
	int r = 0;

	sibyl_bench_progress(b, "command latency");
	warm_up(b);
	if (sibyl_bench_time(b, b->q, enqueue_marker, NULL, reps, CL_PROFILING_COMMAND_QUEUED,
			     "command latency", &p->command, NULL))
		return -1;
	err = sibyl_transfer_alloc(b, &t, 1);
	if (err != CL_SUCCESS)
		r = sibyl_seterr(b->err, b->errlen, "device: creating 1-byte buffers: %s",
				 sibyl_cl_error_name(err));
	for (int d = 0; d < SIBYL_DIR_COUNT && !r; d++) {
		sibyl_bench_progress(b, "%s", what[d]);
		t.dir = d;
		r = sibyl_bench_time(b, b->q, sibyl_enqueue_transfer, &t, reps,
				     CL_PROFILING_COMMAND_START, what[d], &p->transfer[d], NULL);
	}
	sibyl_transfer_release(&t);
	return r;
}

static cl_kernel build_empty(struct sibyl_cl_bench *b)
{
	const char *src = empty_source;
	cl_int err;
	cl_program prog = clCreateProgramWithSource(b->ctx, 1, &src, NULL, &err);
	cl_kernel k = NULL;

	if (err == CL_SUCCESS)
		err = clBuildProgram(prog, 1, &b->dev, "", NULL, NULL);
	if (err == CL_SUCCESS)
		k = clCreateKernel(prog, "sibyl_empty", &err);
	if (err != CL_SUCCESS)
		sibyl_warn("device: cannot build an empty kernel (%s): no launch figures",
			   sibyl_cl_error_name(err));
	if (prog)
		clReleaseProgram(prog);
	return k;
}

/*
 * Launch overhead of an empty kernel, and what profiling costs: the same
 * launches on a queue with and one without CL_QUEUE_PROFILING_ENABLE,
 * alternated so that a busy machine slows both alike.
 */
static int measure_launch(struct sibyl_cl_bench *b, struct sibyl_device_profile *p,
			  unsigned reps)
{
	struct sibyl_timing with, without;

	if (!b->empty)
		return 0;
	sibyl_bench_progress(b, "kernel launch overhead");
	if (sibyl_bench_time(b, b->q, enqueue_empty, b->empty, reps, CL_PROFILING_COMMAND_QUEUED,
			     "empty kernel launch", &p->launch, &p->launch_exec))
		return -1;
	sibyl_bench_progress(b, "profiling overhead");
	double *h_with = calloc(2 * (size_t)reps, sizeof(double)), *h_without = h_with + reps;

	if (!h_with)
		return sibyl_seterr_errno(b->err, b->errlen, "device: profiling overhead");
	for (unsigned i = 0; i < reps; i++) {
		if (sibyl_bench_time(b, b->q_plain, enqueue_empty, b->empty, 1,
				     CL_PROFILING_COMMAND_QUEUED, "empty kernel launch", &without,
				     NULL) ||
		    sibyl_bench_time(b, b->q, enqueue_empty, b->empty, 1,
				     CL_PROFILING_COMMAND_QUEUED, "empty kernel launch", &with, NULL)) {
			free(h_with);
			return -1;
		}
		h_without[i] = without.host.median;
		h_with[i] = with.host.median;
	}
	p->with_profiling = sibyl_stat_of(h_with, reps);
	p->without_profiling = sibyl_stat_of(h_without, reps);
	free(h_with);
	p->profiling_overhead_s = p->with_profiling.median - p->without_profiling.median;
	p->profiling_overhead_pct = p->without_profiling.median > 0
		? 100.0 * p->profiling_overhead_s / p->without_profiling.median : 0;
	return 0;
}

static void copy_info(char *out, char *value)
{
	snprintf(out, SIBYL_PROFILE_STR, "%s", value ? value : "?");
	free(value);
}

static char *device_info(cl_device_id dev, cl_device_info what)
{
	size_t n = 0;
	char *s;

	if (clGetDeviceInfo(dev, what, 0, NULL, &n) != CL_SUCCESS || !n || !(s = calloc(1, n + 1)))
		return NULL;
	clGetDeviceInfo(dev, what, n, s, NULL);
	return s;
}

static void provenance(struct sibyl_cl_bench *b, cl_platform_id plat,
		       struct sibyl_device_profile *p)
{
	const struct sibyl_device_run *run = b->run;
	char host[SIBYL_PROFILE_STR] = "?";
	size_t n = 0;
	time_t now = time(NULL);
	struct tm tm;

	copy_info(p->platform, sibyl_cl_platform_name(plat));
	copy_info(p->device, sibyl_cl_device_name(b->dev));
	if (clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof(host) - 1, host, &n) != CL_SUCCESS)
		snprintf(host, sizeof(host), "?");
	snprintf(p->platform_version, SIBYL_PROFILE_STR, "%s", host);
	copy_info(p->device_version, device_info(b->dev, CL_DEVICE_VERSION));
	copy_info(p->driver_version, device_info(b->dev, CL_DRIVER_VERSION));
	gethostname(host, sizeof(host) - 1);
	snprintf(p->host, SIBYL_PROFILE_STR, "%s", host);
	gmtime_r(&now, &tm);
	strftime(p->date, SIBYL_PROFILE_STR, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(p->sibyl_version, SIBYL_PROFILE_STR, "%s", run->sibyl_version);
	p->repeat = run->repeat;
	p->max_bytes = run->max_bytes;
	p->quick = run->quick;
	cl_ulong v = 0;

	clGetDeviceInfo(b->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(v), &v, NULL);
	p->max_alloc_bytes = v;
	v = 0;
	clGetDeviceInfo(b->dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(v), &v, NULL);
	p->global_mem_bytes = v;
}

static int open_bench(struct sibyl_cl_bench *b, const struct sibyl_device_run *run,
		      cl_platform_id *plat, char *why, size_t whylen)
{
	uint64_t tsc0, ns0;
	cl_int err;

	memset(b, 0, sizeof(*b));
	b->run = run;
	b->err = why;
	b->errlen = whylen;
	sibyl_clock_pair(&tsc0, &ns0);
	if (sibyl_cl_pick_device(run->platform, run->device, plat, &b->dev, why, whylen))
		return -1;
	b->ctx = clCreateContext(NULL, 1, &b->dev, NULL, NULL, &err);
	if (err == CL_SUCCESS)
		b->q = clCreateCommandQueue(b->ctx, b->dev, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err == CL_SUCCESS)
		b->q_plain = clCreateCommandQueue(b->ctx, b->dev, 0, &err);
	if (err != CL_SUCCESS)
		return sibyl_seterr(b->err, b->errlen, "device: creating a context and queues: %s",
				    sibyl_cl_error_name(err));
	b->empty = build_empty(b);
	b->tsc = sibyl_tsc_invariant();
	/* Context creation already took a while; this rarely sleeps. */
	sibyl_clock_calibrate(&b->cal, tsc0, ns0, 50 * 1000 * 1000);
	return 0;
}

static void close_bench(struct sibyl_cl_bench *b)
{
	if (b->empty)
		clReleaseKernel(b->empty);	/* the kernel holds its program */
	if (b->q_plain)
		clReleaseCommandQueue(b->q_plain);
	if (b->q)
		clReleaseCommandQueue(b->q);
	if (b->ctx)
		clReleaseContext(b->ctx);
}

int sibyl_device_measure(const struct sibyl_device_run *run, struct sibyl_device_profile *p,
			 char *err, size_t errlen)
{
	struct sibyl_cl_bench b;
	struct sibyl_progress line;
	cl_platform_id plat;
	unsigned reps = run->repeat * LATENCY_REPEAT_FACTOR;
	int r;

	memset(p, 0, sizeof(*p));
	r = open_bench(&b, run, &plat, err, errlen);
	/* The parent asked for it: stderr is its terminal. */
	sibyl_progress_start(&line, stderr, "device", NULL);
	line.on &= run->progress;
	b.line = &line;
	if (!r) {
		provenance(&b, plat, p);
		r = measure_latencies(&b, p, reps);
	}
	if (!r)
		r = measure_launch(&b, p, reps);
	if (!r)
		r = sibyl_bench_bandwidth(&b, p);
	sibyl_bench_progress(&b, NULL);
	close_bench(&b);
	if (!r)
		sibyl_device_profile_fit(p);
	return r;
}
