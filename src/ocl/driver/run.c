/* Launch and time a kernel, sample after sample, on the chosen device. */
#define _GNU_SOURCE
#include "ocl/driver/run.h"
#include "ocl/driver/args.h"
#include "ocl/driver/argspec.h"
#include "ocl/driver/check.h"
#include "ocl/driver/fenced.h"
#include "ocl/driver/program.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/output.h"
#include "core/log.h"
#include "core/message.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct dev_state {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	struct sibyl_program prog;
	cl_mem *mems;		/* per argument; NULL for values and __local */
	cl_mem counters;	/* -i (not --spir) */
	cl_sampler sampler;	/* every sampler_t argument */
	size_t counters_size;
	double transfer_ns;	/* of the current sample */
	uint64_t local_elements;	/* items of each __local argument */
	char *err;		/* the caller's, for the one error line */
	size_t errlen;
};

void sibyl_emit(int fd, json_t *msg)
{
	sibyl_msg_send(fd, msg);	/* a parent that is gone reads nothing anyway */
	json_decref(msg);
}

static int cl_check(const struct dev_state *s, cl_int e, const char *what)
{
	if (e == CL_SUCCESS)
		return 0;
	return sibyl_seterr(s->err, s->errlen, "kernel: %s: %s", what, sibyl_cl_error_name(e));
}

static double event_span(cl_event ev, cl_profiling_info from, cl_profiling_info to)
{
	cl_ulong a = 0, b = 0;

	clGetEventProfilingInfo(ev, from, sizeof(a), &a, NULL);
	clGetEventProfilingInfo(ev, to, sizeof(b), &b, NULL);
	return b >= a ? (double)(b - a) : 0.0;
}

/* Transfers are timed by their own events, summed per sample. */
static void transfer_done(struct dev_state *s, cl_event ev)
{
	s->transfer_ns += event_span(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
	clReleaseEvent(ev);
}

/* __local arrays: --elements, else one item per work-item of a group. */
static void local_elements(const struct sibyl_run_cfg *cfg, struct dev_state *s)
{
	size_t max_wg = 0;

	clGetDeviceInfo(s->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
	s->local_elements = cfg->elements ? cfg->elements : cfg->lsize ? cfg->lsize
			  : cfg->gsize < max_wg || !max_wg ? cfg->gsize : max_wg;
}

/* Some runtimes (PoCL) assert instead of failing on too much local memory. */
static int check_local(const struct sibyl_run_cfg *cfg, struct dev_state *s,
		       const struct sibyl_args *a)
{
	cl_ulong have = 0;
	size_t need = 0;

	clGetDeviceInfo(s->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(have), &have, NULL);
	bool over = false;

	for (size_t i = 0; i < cfg->kernel->nargs; i++)
		if (cfg->kernel->args[i].kind == SIBYL_KARG_LOCAL)
			over |= __builtin_add_overflow(need, a->a[i].size, &need);
	if (over)
		return sibyl_seterr(s->err, s->errlen, "kernel: the __local arguments need more "
				    "bytes than a size_t holds (see --elements)");
	if (have && need > have)
		return sibyl_seterr(s->err, s->errlen, "kernel: the __local arguments need %zu "
				    "bytes, the device has %llu (see --elements)", need,
				    (unsigned long long)have);
	return 0;
}

/* 0, or the runner's exit status (run.h) with the error line in s->err. */
static int setup(const struct sibyl_run_cfg *cfg, struct dev_state *s, int fd)
{
	cl_platform_id plat;
	cl_int e;
	int r;

	if (sibyl_cl_pick_device(cfg->platform, cfg->device, &plat, &s->dev, s->err, s->errlen) < 0)
		return -1;
	s->ctx = clCreateContext(NULL, 1, &s->dev, NULL, NULL, &e);
	if (cl_check(s, e, "clCreateContext"))
		return -1;
	s->q = clCreateCommandQueue(s->ctx, s->dev, CL_QUEUE_PROFILING_ENABLE, &e);
	if (cl_check(s, e, "clCreateCommandQueue"))
		return -1;
	if ((r = sibyl_program_build(cfg, s->ctx, s->dev, &s->prog, s->err, s->errlen)))
		return r;
	char *pn = sibyl_cl_platform_name(plat), *dn = sibyl_cl_device_name(s->dev);
	json_t *msg = json_pack("{s:s, s:s, s:s}", "event", "device", "platform", pn, "device", dn);
	cl_uint cu = 0;

	/* The threads a CPU device runs a launch on (PoCL: the CPUs, or
	 * POCL_MAX_PTHREAD_COUNT): the same device name at another count
	 * is another device for timing (kmodel's provenance). */
	if (clGetDeviceInfo(s->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL) ==
	    CL_SUCCESS && cu)
		json_object_set_new(msg, "compute_units", json_integer(cu));

	if (s->prog.cache)
		json_object_set_new(msg, "cache", json_string(s->prog.cache));
	sibyl_emit(fd, msg);
	free(pn);
	free(dn);
	return 0;
}

/* The alignment the device wants of host pointers (at least 128 bytes). */
static size_t fence_align(cl_device_id dev)
{
	cl_uint bits = 0;

	clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(bits), &bits, NULL);
	return bits / 8 > 128 ? bits / 8 : 128;
}

/* Whether the device takes images of format want (args.h). */
static int image_format(struct dev_state *s, cl_mem_object_type type, const char *name,
			const cl_image_format *want, const char *what)
{
	cl_bool images = CL_FALSE;
	cl_image_format f[256];
	cl_uint n = 0;

	clGetDeviceInfo(s->dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
	if (images)
		clGetSupportedImageFormats(s->ctx, CL_MEM_READ_WRITE, type, 256, f, &n);
	for (cl_uint i = 0; i < n && i < 256; i++)
		if (f[i].image_channel_order == want->image_channel_order &&
		    f[i].image_channel_data_type == want->image_channel_data_type)
			return 0;
	return sibyl_seterr(s->err, s->errlen, "kernel: argument '%s': the device has no %s%s",
			    name, images ? what : "", images ? " images" : "images");
}

/* An image of the argument's type (its pixels are written per sample),
 * or the run's one sampler: unnormalised coordinates, clamped, nearest. */
static int create_image(struct dev_state *s, const struct sibyl_karg *arg,
			const struct sibyl_argbuf *b, cl_mem *out)
{
	static const cl_mem_object_type types[] = { CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE2D,
						    CL_MEM_OBJECT_IMAGE3D };
	static const cl_channel_type channels[] = { CL_FLOAT, CL_SIGNED_INT32,
						    CL_UNSIGNED_INT32 };	/* argspec.h */
	cl_image_format f = { CL_RGBA, channels[b->image < 3 ? b->image : 0] };
	cl_int e;

	if (arg->kind == SIBYL_KARG_SAMPLER) {
		if (!s->sampler)
			s->sampler = clCreateSampler(s->ctx, CL_FALSE, CL_ADDRESS_CLAMP,
						     CL_FILTER_NEAREST, &e);
		return s->sampler ? 0 : cl_check(s, e, arg->name);
	}
	cl_image_desc d = { .image_type = types[sibyl_image_dims(arg) - 1],
			    .image_width = b->extent[0], .image_height = b->extent[1],
			    .image_depth = b->extent[2] };

	if (image_format(s, d.image_type, arg->name, &f, sibyl_image_format_name(b->image)) < 0)
		return -1;
	*out = clCreateImage(s->ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &e);
	return cl_check(s, e, arg->name);
}

/* -i's counters, the probes' rows and log: fenced too, so that sibyl's
 * own sizing of them, if wrong, fails at once and by name. */
static int create_counters(const struct sibyl_run_cfg *cfg, struct dev_state *s)
{
	size_t size = s->counters_size ? s->counters_size : 1;
	cl_mem_flags f = CL_MEM_READ_WRITE;
	void *host = NULL;
	cl_int e;

	if (cfg->fence) {
		if (!(host = sibyl_fenced_alloc(size, fence_align(s->dev), SIBYL_FENCE_COUNTERS)))
			return sibyl_seterr_errno(s->err, s->errlen, "kernel: --fence: the counters");
		f |= CL_MEM_USE_HOST_PTR;
	}
	s->counters = clCreateBuffer(s->ctx, f, size, host, &e);
	return cl_check(s, e, "the counters buffer");
}

/* Buffers keep their size for every sample of a run: create them once. */
static int create_buffers(const struct sibyl_run_cfg *cfg, struct dev_state *s,
			  const struct sibyl_args *a)
{
	const struct sibyl_kernel *k = cfg->kernel;
	cl_int e;

	s->mems = sibyl_xcalloc(k->nargs + 1, sizeof(*s->mems));
	for (size_t i = 0; i < k->nargs; i++) {
		if (k->args[i].kind == SIBYL_KARG_IMAGE || k->args[i].kind == SIBYL_KARG_SAMPLER) {
			if (create_image(s, &k->args[i], &a->a[i], &s->mems[i]) < 0)
				return -1;
			continue;
		}
		if (k->args[i].kind != SIBYL_KARG_BUFFER)
			continue;
		cl_mem_flags f = !strcmp(k->args[i].space, "constant") ? CL_MEM_READ_ONLY
								       : CL_MEM_READ_WRITE;
		void *host = NULL;

		if (cfg->fence) {
			if (!(host = sibyl_fenced_alloc(a->a[i].size, fence_align(s->dev),
							k->args[i].name)))
				return sibyl_seterr_errno(s->err, s->errlen, "kernel: --fence: %s",
							  k->args[i].name);
			f |= CL_MEM_USE_HOST_PTR;
		}
		s->mems[i] = clCreateBuffer(s->ctx, f, a->a[i].size, host, &e);
		if (cl_check(s, e, k->args[i].name))
			return -1;
	}
	if (!sibyl_run_cfg_counts(cfg))
		return 0;
	return create_counters(cfg, s);
}

static cl_int write_image(struct dev_state *s, cl_mem img, const struct sibyl_argbuf *b)
{
	size_t origin[3] = { 0, 0, 0 };
	cl_event ev;
	cl_int e = clEnqueueWriteImage(s->q, img, CL_FALSE, origin, b->extent, 0, 0, b->data, 0,
				       NULL, &ev);

	if (e == CL_SUCCESS) {
		clWaitForEvents(1, &ev);
		transfer_done(s, ev);
	}
	return e;
}

/* Set every argument and write the buffers' contents. */
static int set_args(const struct sibyl_run_cfg *cfg, struct dev_state *s,
		    const struct sibyl_args *a)
{
	const struct sibyl_kernel *k = cfg->kernel;
	cl_kernel kn = s->prog.kernel;
	cl_event ev;
	cl_int e = CL_SUCCESS;

	for (cl_uint i = 0; i < k->nargs && e == CL_SUCCESS; i++) {
		const struct sibyl_argbuf *b = &a->a[i];

		switch (k->args[i].kind) {
		case SIBYL_KARG_VALUE:
			e = clSetKernelArg(kn, i, b->size, b->data);
			break;
		case SIBYL_KARG_LOCAL:
			e = clSetKernelArg(kn, i, b->size, NULL);
			break;
		case SIBYL_KARG_SAMPLER:
			e = clSetKernelArg(kn, i, sizeof(cl_sampler), &s->sampler);
			break;
		case SIBYL_KARG_IMAGE:
			e = write_image(s, s->mems[i], b);
			if (e == CL_SUCCESS)
				e = clSetKernelArg(kn, i, sizeof(cl_mem), &s->mems[i]);
			break;
		default:
			e = clEnqueueWriteBuffer(s->q, s->mems[i], CL_FALSE, 0, b->size, b->data,
						 0, NULL, &ev);
			if (e == CL_SUCCESS) {
				clWaitForEvents(1, &ev);
				transfer_done(s, ev);
				e = clSetKernelArg(kn, i, sizeof(cl_mem), &s->mems[i]);
			}
		}
		if (e != CL_SUCCESS)
			return sibyl_seterr(s->err, s->errlen, "kernel: argument %u (%s): %s", i,
					    k->args[i].name, sibyl_cl_error_name(e));
	}
	if (!sibyl_run_cfg_counts(cfg))
		return 0;
	unsigned char zero = 0;

	e = clEnqueueFillBuffer(s->q, s->counters, &zero, 1, 0, s->counters_size, 0, NULL, &ev);
	if (e == CL_SUCCESS) {
		clWaitForEvents(1, &ev);
		transfer_done(s, ev);
		e = clSetKernelArg(kn, cfg->counter_arg, sizeof(cl_mem), &s->counters);
	}
	return cl_check(s, e, "the counters argument");
}

static int read_back(const struct sibyl_run_cfg *cfg, struct dev_state *s, struct sibyl_args *a,
		     void *counters)
{
	cl_event ev;
	cl_int e = CL_SUCCESS;

	for (size_t i = 0; i < cfg->kernel->nargs && e == CL_SUCCESS; i++) {
		if (!s->mems[i] || cfg->kernel->args[i].kind != SIBYL_KARG_BUFFER ||
		    !strcmp(cfg->kernel->args[i].space, "constant"))
			continue;
		e = clEnqueueReadBuffer(s->q, s->mems[i], CL_TRUE, 0, a->a[i].size, a->a[i].data,
					0, NULL, &ev);
		if (e == CL_SUCCESS)
			transfer_done(s, ev);
	}
	if (e == CL_SUCCESS && counters) {
		e = clEnqueueReadBuffer(s->q, s->counters, CL_TRUE, 0, s->counters_size, counters,
					0, NULL, &ev);
		if (e == CL_SUCCESS)
			transfer_done(s, ev);
	}
	return cl_check(s, e, "reading the results back");
}

/* The raw counters go to a file; sibyl decodes them (it holds the layout). */
static int save_counters(const struct sibyl_run_cfg *cfg, const struct dev_state *s, long i,
			 const void *counters, json_t *msg)
{
	char *path;

	path = sibyl_xasprintf("%s.%llu.%ld", cfg->counters_path,
			       (unsigned long long)cfg->gsize, i);
	int r = sibyl_output_write(path, counters, s->counters_size, 0666);

	if (r < 0)
		sibyl_seterr_errno(s->err, s->errlen, "kernel: %s", path);
	else
		json_object_set_new(msg, "counters", json_string(path));
	free(path);
	return r;
}

/* Which launch went CL_RUNNING: sibyl then times the kernel's run, no
 * longer the device's compile (guard.h).  Freed by the callback. */
struct running {
	int fd;
	long sample;
	uint64_t gsize;
};

static void CL_CALLBACK on_running(cl_event ev, cl_int status, void *data)
{
	struct running *r = data;

	(void)ev;
	if (status == CL_RUNNING)
		sibyl_emit(r->fd, json_pack("{s:s, s:i, s:I}", "event", "running", "sample",
					    (int)r->sample, "gsize", (json_int_t)r->gsize));
	free(r);
}

static int launch(const struct sibyl_run_cfg *cfg, struct dev_state *s, long i, int fd,
		  json_t *msg)
{
	size_t g[3] = { cfg->gsize, 1, 1 }, l[3] = { cfg->lsize, 1, 1 };
	cl_uint dims = cfg->dims > 1 ? cfg->dims : 1;
	cl_event ev;
	struct timespec c0, c1;

	for (cl_uint d = 0; dims > 1 && d < 3; d++) {
		g[d] = cfg->gdim[d];
		l[d] = cfg->ldim[d];
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	cl_int e = clEnqueueNDRangeKernel(s->q, s->prog.kernel, dims, NULL, g, l[0] ? l : NULL, 0,
					  NULL, &ev);

	if (e == CL_SUCCESS) {
		struct running *r = sibyl_xmalloc(sizeof(*r));

		*r = (struct running){ fd, i, cfg->gsize };
		if (clSetEventCallback(ev, CL_RUNNING, on_running, r) != CL_SUCCESS)
			free(r);
		clFlush(s->q);
		e = clWaitForEvents(1, &ev);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	if (e != CL_SUCCESS)
		return sibyl_seterr(s->err, s->errlen, "kernel: running %s (%zu work-items, "
				    "groups of %zu): %s", cfg->kernel->name, (size_t)cfg->gsize,
				    (size_t)cfg->lsize, sibyl_cl_error_name(e));
	json_object_set_new(msg, "device_ns", json_real(event_span(ev, CL_PROFILING_COMMAND_START,
								    CL_PROFILING_COMMAND_END)));
	json_object_set_new(msg, "queue_ns", json_real(event_span(ev, CL_PROFILING_COMMAND_QUEUED,
								   CL_PROFILING_COMMAND_SUBMIT)));
	json_object_set_new(msg, "submit_ns", json_real(event_span(ev, CL_PROFILING_COMMAND_SUBMIT,
								    CL_PROFILING_COMMAND_START)));
	/* The process's CPU time over the launch, every thread: on a CPU
	 * device the work itself, which other processes' load does not
	 * stretch as it does the device time (docs/kernel.md). */
	json_object_set_new(msg, "cpu_ns", json_real((double)(c1.tv_sec - c0.tv_sec) * 1e9 +
						      (double)(c1.tv_nsec - c0.tv_nsec)));
	clReleaseEvent(ev);
	return 0;
}

/* --check: the sample's arguments again (the very same values, from its
 * seed), run a second time; the digests of both runs go into msg
 * (check.h).  The sample's times stay those of its first run. */
static int check_sample(const struct sibyl_run_cfg *cfg, struct dev_state *s,
			const struct sibyl_args_cfg *acfg, const struct sibyl_args *a, long i,
			int fd, json_t *msg)
{
	json_t *c = json_object(), *scratch = json_object();
	struct sibyl_args again;
	int r = -1;

	json_object_set_new(msg, "check", c);
	json_object_set_new(c, "after", sibyl_check_digests(cfg->kernel, a));
	if (sibyl_args_generate(cfg->kernel, acfg, &again, s->err, s->errlen) < 0)
		return json_decref(scratch), -1;
	json_object_set_new(c, "input", sibyl_check_input(cfg->kernel, &again));
	json_object_set_new(c, "before", sibyl_check_digests(cfg->kernel, &again));
	if (set_args(cfg, s, &again) == 0 && launch(cfg, s, i, fd, scratch) == 0 &&
	    read_back(cfg, s, &again, NULL) == 0) {
		json_object_set_new(c, "again", sibyl_check_digests(cfg->kernel, &again));
		r = 0;
	}
	json_decref(scratch);
	sibyl_args_free(&again);
	return r;
}

/* One sample; a warm-up (report false) runs the same way, unreported. */
static int run_sample(const struct sibyl_run_cfg *cfg, struct dev_state *s, long i, int fd,
		      bool report)
{
	struct sibyl_args_cfg acfg;
	struct sibyl_args a;
	void *counters = NULL;
	int r = -1;

	sibyl_run_cfg_args(cfg, cfg->seed + (uint64_t)i, s->local_elements, &acfg);
	if (sibyl_args_generate(cfg->kernel, &acfg, &a, s->err, s->errlen) < 0)
		return -1;
	if (!s->mems && (create_buffers(cfg, s, &a) < 0 || check_local(cfg, s, &a) < 0))
		goto out;
	json_t *msg = json_pack("{s:s, s:i, s:I, s:I, s:I}", "event", "sample", "sample", (int)i,
				"seed", (json_int_t)acfg.seed, "gsize", (json_int_t)cfg->gsize,
				"lsize", (json_int_t)cfg->lsize);

	if (cfg->dump_args)
		json_object_set_new(msg, "args", sibyl_args_json(cfg->kernel, &a));
	sibyl_emit(fd, json_pack("{s:s, s:i, s:I, s:I, s:I, s:b}", "event", "start", "sample",
				 (int)i, "seed", (json_int_t)acfg.seed, "gsize",
				 (json_int_t)cfg->gsize, "local_elements",
				 (json_int_t)s->local_elements, "warmup", !report));
	if (sibyl_run_cfg_counts(cfg))
		counters = sibyl_xcalloc(1, s->counters_size + 1);
	s->transfer_ns = 0;
	uint64_t t0 = sibyl_mono_ns();

	if (set_args(cfg, s, &a) < 0 || launch(cfg, s, i, fd, msg) < 0 ||
	    read_back(cfg, s, &a, counters) < 0) {
		json_decref(msg);
		goto out;
	}
	json_object_set_new(msg, "host_ns", json_real((double)(sibyl_mono_ns() - t0)));
	json_object_set_new(msg, "transfer_ns", json_real(s->transfer_ns));
	if (!report) {
		json_decref(msg);
		sibyl_emit(fd, json_pack("{s:s}", "event", "warmed"));
		r = 0;
		goto out;
	}
	if ((cfg->check && check_sample(cfg, s, &acfg, &a, i, fd, msg) < 0) ||
	    (counters && save_counters(cfg, s, i, counters, msg) < 0)) {
		json_decref(msg);
		goto out;
	}
	if (cfg->dump_args)
		json_object_set_new(msg, "after", sibyl_args_json(cfg->kernel, &a));
	sibyl_emit(fd, msg);
	r = 0;
out:
	free(counters);
	sibyl_args_free(&a);
	return r;
}

/* Buffers are sized by the global size: new ones for the next size. */
static void drop_buffers(const struct sibyl_run_cfg *cfg, struct dev_state *s)
{
	for (size_t i = 0; s->mems && i < cfg->kernel->nargs; i++)
		if (s->mems[i])
			clReleaseMemObject(s->mems[i]);
	free(s->mems);
	s->mems = NULL;
	if (s->counters)
		clReleaseMemObject(s->counters);
	s->counters = NULL;
}

int sibyl_run_samples(const struct sibyl_run_cfg *cfg, int fd, char *err, size_t errlen)
{
	struct dev_state s = { .err = err, .errlen = errlen };
	int r = setup(cfg, &s, fd);
	size_t n = sibyl_run_cfg_sizes(cfg);

	if (cfg->fence)
		sibyl_fenced_watch(fd);

	/* One runner serves every size of a sweep: the program is built once. */
	for (size_t k = 0; !r && k < n; k++) {
		struct sibyl_run_cfg one = *cfg;

		one.gsize = cfg->gsize + k * cfg->gsize_step;
		one.first_sample = k ? 0 : cfg->first_sample;
		s.counters_size = sibyl_run_cfg_counts(cfg) ? cfg->counters_sizes[k] : 0;
		drop_buffers(cfg, &s);
		local_elements(&one, &s);
		for (long w = 0; !r && w < one.warmup; w++)
			r = run_sample(&one, &s, one.first_sample, fd, false);
		for (long i = one.first_sample; !r && i < one.samples; i++)
			r = run_sample(&one, &s, i, fd, true);
	}
	/* Nothing else is released: the runner exits now, and PoCL 5 crashes
	 * in clReleaseProgram for some programs (Rodinia's mergesort). */
	return r > 0 ? r : r ? 1 : 0;
}
