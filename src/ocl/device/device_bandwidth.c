/*
 * The bandwidth curve of `sibyl device`: 64 B .. --max-bytes in x4 steps,
 * for host->device writes, device->host reads and device->device copies.
 * Sizes the device or the host cannot hold are skipped with a note (and
 * so are all larger ones).
 */
#include "ocl/device/device_bench.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this many bytes per size and direction, fewer repeats (but at
 * least 3, or --repeat when smaller): the large sizes would otherwise
 * dominate the run time. */
#define BYTES_BUDGET (256ull << 20)
#define QUICK_BYTES_BUDGET (16ull << 20)

/* map, copy, unmap: the zero-copy path of devices sharing host memory
 * and the pinned path of discrete ones. */
static cl_int mapped_copy(cl_command_queue q, struct sibyl_transfer *t)
{
	bool to_device = t->dir == SIBYL_H2D_MAP;
	cl_int err;
	void *p = clEnqueueMapBuffer(q, t->mapped, CL_TRUE,
				     to_device ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ,
				     0, t->bytes, 0, NULL, NULL, &err);

	if (err != CL_SUCCESS)
		return err;
	if (to_device)
		memcpy(p, t->host, t->bytes);
	else
		memcpy(t->host, p, t->bytes);
	return clEnqueueUnmapMemObject(q, t->mapped, p, 0, NULL, NULL);
}

cl_int sibyl_enqueue_transfer(cl_command_queue q, void *arg, cl_event *ev)
{
	struct sibyl_transfer *t = arg;

	switch (t->dir) {
	case SIBYL_H2D:
		return clEnqueueWriteBuffer(q, t->a, CL_FALSE, 0, t->bytes, t->host, 0, NULL, ev);
	case SIBYL_D2H:
		return clEnqueueReadBuffer(q, t->a, CL_FALSE, 0, t->bytes, t->host, 0, NULL, ev);
	case SIBYL_D2D:
		return clEnqueueCopyBuffer(q, t->a, t->b, 0, 0, t->bytes, 0, NULL, ev);
	default:
		*ev = NULL;
		return mapped_copy(q, t);
	}
}

/* MemAvailable from /proc/meminfo, or 0 when unknown. */
static uint64_t host_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

static bool unified_memory(cl_device_id dev)
{
	cl_bool unified = CL_FALSE;
	cl_device_type type = 0;

	clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	return unified || (type & CL_DEVICE_TYPE_CPU);
}

/*
 * Why `bytes` cannot be measured, or NULL.  One host buffer and three
 * device buffers of that size; on a device sharing host memory all
 * four come from the host, of which we take at most half of what is
 * available (other programs run too).
 */
static const char *too_large(struct sibyl_cl_bench *b, const struct sibyl_device_profile *p,
			     uint64_t bytes, char *why, size_t len)
{
	uint64_t avail = host_available();
	uint64_t host_need = bytes * (unified_memory(b->dev) ? 4 : 1);

	if (p->max_alloc_bytes && bytes > p->max_alloc_bytes)
		snprintf(why, len, "above CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes)",
			 (unsigned long long)p->max_alloc_bytes);
	else if (p->global_mem_bytes && 3 * bytes > p->global_mem_bytes)
		snprintf(why, len, "three buffers exceed CL_DEVICE_GLOBAL_MEM_SIZE (%llu bytes)",
			 (unsigned long long)p->global_mem_bytes);
	else if (avail && host_need > avail / 2)
		snprintf(why, len, "needs %llu MiB of host memory, %llu MiB available",
			 (unsigned long long)(host_need >> 20), (unsigned long long)(avail >> 20));
	else
		return NULL;
	return why;
}

static unsigned repeats_for(const struct sibyl_device_run *run, uint64_t bytes)
{
	uint64_t budget = run->quick ? QUICK_BYTES_BUDGET : BYTES_BUDGET;
	uint64_t n = budget / bytes;

	unsigned floor = run->repeat < 3 ? run->repeat : 3;

	if (n >= run->repeat)
		return run->repeat;
	return n < floor ? floor : (unsigned)n;
}

void sibyl_transfer_release(struct sibyl_transfer *t)
{
	if (t->a)
		clReleaseMemObject(t->a);
	if (t->b)
		clReleaseMemObject(t->b);
	if (t->mapped)
		clReleaseMemObject(t->mapped);
	free(t->host);
	memset(t, 0, sizeof(*t));
}

/* Buffers for one size; CL_MEM_OBJECT_ALLOCATION_FAILURE etc. on failure. */
cl_int sibyl_transfer_alloc(struct sibyl_cl_bench *b, struct sibyl_transfer *t, uint64_t bytes)
{
	cl_int err = CL_SUCCESS;

	memset(t, 0, sizeof(*t));
	t->bytes = bytes;
	if (posix_memalign(&t->host, 4096, bytes))
		return CL_OUT_OF_HOST_MEMORY;
	memset(t->host, 0x5a, bytes);	/* fault the pages in before timing */
	t->a = clCreateBuffer(b->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (err == CL_SUCCESS)
		t->b = clCreateBuffer(b->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (err == CL_SUCCESS)
		t->mapped = clCreateBuffer(b->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
					   NULL, &err);
	/* Fill the device buffers so no timed transfer pays first touch. */
	if (err == CL_SUCCESS)
		err = clEnqueueWriteBuffer(b->q, t->a, CL_TRUE, 0, bytes, t->host, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueWriteBuffer(b->q, t->b, CL_TRUE, 0, bytes, t->host, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueWriteBuffer(b->q, t->mapped, CL_TRUE, 0, bytes, t->host, 0, NULL,
					   NULL);
	return err;
}

static int measure_size(struct sibyl_cl_bench *b, struct sibyl_device_profile *p,
			struct sibyl_transfer *t, size_t index, int steps)
{
	char size[32];
	unsigned reps = repeats_for(b->run, t->bytes);

	sibyl_fmt_bytes(size, sizeof(size), t->bytes);
	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		struct sibyl_bw_point *pt = &p->curve[d].points[index];
		char what[64];

		snprintf(what, sizeof(what), "%s of %s", sibyl_transfer_dir_name(d), size);
		sibyl_bench_progress(b, "bandwidth %s (%zu/%d)", what, index + 1, steps);
		t->dir = d;
		pt->bytes = t->bytes;
		if (sibyl_bench_time(b, b->q, sibyl_enqueue_transfer, t, reps, CL_PROFILING_COMMAND_START,
				     what, &pt->t, NULL))
			return -1;
		pt->gbps = pt->t.host.median > 0 ? (double)t->bytes / pt->t.host.median / 1e9 : 0;
		p->curve[d].count = index + 1;
	}
	return 0;
}

static void skip_from(struct sibyl_cl_bench *b, struct sibyl_device_profile *p,
		      uint64_t bytes, const char *why)
{
	char size[32];

	sibyl_bench_progress(b, NULL);
	sibyl_fmt_bytes(size, sizeof(size), bytes);
	p->skipped_from = bytes;
	snprintf(p->skipped_reason, sizeof(p->skipped_reason), "%s", why);
	sibyl_warn("device: bandwidth: sizes from %s skipped: %s", size, why);
}

int sibyl_bench_bandwidth(struct sibyl_cl_bench *b, struct sibyl_device_profile *p)
{
	int steps = 0;
	size_t index = 0;

	/* Bounded by the points too: s *= 4 wraps to 0 past 2^62. */
	for (uint64_t s = SIBYL_BW_MIN_BYTES; s <= b->run->max_bytes && steps < SIBYL_BW_MAX_POINTS;
	     s *= 4)
		steps++;
	for (uint64_t bytes = SIBYL_BW_MIN_BYTES; bytes <= b->run->max_bytes &&
	     index < SIBYL_BW_MAX_POINTS; bytes *= 4, index++) {
		char why[SIBYL_PROFILE_STR];
		struct sibyl_transfer t;

		if (too_large(b, p, bytes, why, sizeof(why))) {
			skip_from(b, p, bytes, why);
			break;
		}
		cl_int err = sibyl_transfer_alloc(b, &t, bytes);

		if (err != CL_SUCCESS) {
			snprintf(why, sizeof(why), "allocation failed (%s)", sibyl_cl_error_name(err));
			sibyl_transfer_release(&t);
			skip_from(b, p, bytes, why);
			break;
		}
		int r = measure_size(b, p, &t, index, steps);

		sibyl_transfer_release(&t);
		if (r)
			return -1;
	}
	return 0;
}
