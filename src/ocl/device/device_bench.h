/*
 * Internal to `sibyl device`: the OpenCL objects a measurement needs and
 * the one timing loop every measurement goes through.
 */
#ifndef SIBYL_OCL_DEVICE_BENCH_H
#define SIBYL_OCL_DEVICE_BENCH_H

#include "core/clock.h"
#include "core/progress.h"
#include "ocl/common/clutil.h"
#include "ocl/device/device.h"

struct sibyl_cl_bench {
	const struct sibyl_device_run *run;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;		/* CL_QUEUE_PROFILING_ENABLE */
	cl_command_queue q_plain;	/* without profiling */
	cl_kernel empty;		/* NULL when no compiler */
	bool tsc;			/* TSC usable (invariant) */
	struct sibyl_clock_cal cal;
	struct sibyl_progress *line;	/* the phase under way (sibyl_bench_progress) */
	char *err;			/* the caller's, for the one error line */
	size_t errlen;
};

/* Enqueue one command on q, returning its event. */
typedef cl_int (*sibyl_enqueue_fn)(cl_command_queue q, void *arg, cl_event *ev);

/*
 * One warm-up, then `reps` runs of fn on q, each timed on the host
 * (enqueue .. clFinish) and on the device (event `from` .. END, when q
 * profiles).  `exec`, when not NULL, also gets START .. END.
 * Returns 0 or -1 after one error line naming `what`.
 */
int sibyl_bench_time(struct sibyl_cl_bench *b, cl_command_queue q, sibyl_enqueue_fn fn,
		     void *arg, unsigned reps, cl_profiling_info from, const char *what,
		     struct sibyl_timing *out, struct sibyl_stat *exec);

/* Host clock reading and its conversion to seconds. */
uint64_t sibyl_bench_now(const struct sibyl_cl_bench *b);
double sibyl_bench_seconds(const struct sibyl_cl_bench *b, uint64_t delta);

/* "\r<what>" on stderr when run->progress; NULL clears the line. */
void sibyl_bench_progress(const struct sibyl_cl_bench *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Buffers for transfers of one size: a page-aligned host buffer, two
 * device buffers (a, b) and one CL_MEM_ALLOC_HOST_PTR buffer for the
 * mapped directions; `dir` picks what sibyl_enqueue_transfer does. */
struct sibyl_transfer {
	cl_mem a, b, mapped;
	void *host;
	size_t bytes;
	enum sibyl_transfer_dir dir;
};

cl_int sibyl_transfer_alloc(struct sibyl_cl_bench *b, struct sibyl_transfer *t, uint64_t bytes);
void sibyl_transfer_release(struct sibyl_transfer *t);
/* A sibyl_enqueue_fn; arg is a struct sibyl_transfer.  The mapped
 * directions (map, memcpy, unmap) return no event: host time only. */
cl_int sibyl_enqueue_transfer(cl_command_queue q, void *arg, cl_event *ev);

/* The bandwidth curves (device_bandwidth.c). */
int sibyl_bench_bandwidth(struct sibyl_cl_bench *b, struct sibyl_device_profile *p);

#endif
