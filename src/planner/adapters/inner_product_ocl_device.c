/* Inner product on the OpenCL device (PoCL here): the OpenCL half of
 * the inner-product-ocl adapter (inner_product_ocl.c), in the library
 * sibyl-adapters-ocl that sibyl-plan-worker links and sibyl does not.
 * The program is built once in init (untimed); a timed run is what a
 * caller of an accelerator pays: both vectors written to the device, the
 * kernel (per-work-group tree reduction), the partial sums read back and
 * added on the host. */
#include "planner/adapters/adapters.h"
#include "planner/adapters/opencl.h"
#include "ocl/common/clutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LOCAL 64
#define MAX_GROUPS 256

static const char *kernel_source =
	"__kernel void inner_product(__global const float *x, __global const float *y,\n"
	"                  uint n, __global float *partial, __local float *scratch)\n"
	"{\n"
	"    size_t lid = get_local_id(0);\n"
	"    float sum = 0.0f;\n"
	"    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))\n"
	"        sum += x[i] * y[i];\n"
	"    scratch[lid] = sum;\n"
	"    barrier(CLK_LOCAL_MEM_FENCE);\n"
	"    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
	"        if (lid < s)\n"
	"            scratch[lid] += scratch[lid + s];\n"
	"        barrier(CLK_LOCAL_MEM_FENCE);\n"
	"    }\n"
	"    if (lid == 0)\n"
	"        partial[get_group_id(0)] = scratch[0];\n"
	"}\n";

struct ocl_state {
	struct adapter_common common; /* first: adapter_now() reads it */
	cl_context context;
	cl_command_queue queue;
	cl_program program;
	cl_kernel kernel;
	size_t local;
};

struct ocl_sample {
	float *x, *y, *partial;
	size_t n, groups;
	cl_mem dx, dy, dpartial;
	double result;
};

static int fail(char *errbuf, size_t errlen, const char *what, cl_int err)
{
	snprintf(errbuf, errlen, "%s: %s", what, sibyl_cl_error_name(err));
	return -1;
}

static void release_state(struct ocl_state *s)
{
	if (s->kernel)
		clReleaseKernel(s->kernel);
	if (s->program)
		clReleaseProgram(s->program);
	if (s->queue)
		clReleaseCommandQueue(s->queue);
	if (s->context)
		clReleaseContext(s->context);
	free(s);
}

static int build(struct ocl_state *s, cl_device_id dev, char *errbuf, size_t errlen)
{
	cl_int err;
	s->program = clCreateProgramWithSource(s->context, 1, &kernel_source, NULL, &err);
	if (!s->program)
		return fail(errbuf, errlen, "clCreateProgramWithSource", err);
	err = clBuildProgram(s->program, 1, &dev, "", NULL, NULL);
	if (err != CL_SUCCESS)
		return fail(errbuf, errlen, "clBuildProgram", err);
	s->kernel = clCreateKernel(s->program, "inner_product", &err);
	if (!s->kernel)
		return fail(errbuf, errlen, "clCreateKernel", err);
	size_t max_local = LOCAL;
	clGetKernelWorkGroupInfo(s->kernel, dev, CL_KERNEL_WORK_GROUP_SIZE,
				 sizeof(max_local), &max_local, NULL);
	/* The reduction halves the group: keep a power of two. */
	for (s->local = LOCAL; s->local > max_local; s->local /= 2)
		;
	return 0;
}

static int init(void **state, const struct sibyl_adapter_config *config,
		char *errbuf, size_t errlen)
{
	void *common;
	cl_platform_id platform;
	cl_device_id dev;
	cl_int err;
	if (adapter_common_init(&common, config, errbuf, errlen) < 0)
		return -1;
	struct ocl_state *s = calloc(1, sizeof(*s));
	if (!s) {
		adapter_common_fini(common);
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	s->common = *(struct adapter_common *)common;
	adapter_common_fini(common);
	if (sibyl_cl_pick_device(config->platform, config->device, &platform, &dev, errbuf,
				 errlen) < 0) {
		release_state(s);
		return -1;
	}
	s->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (!s->context) {
		release_state(s);
		return fail(errbuf, errlen, "clCreateContext", err);
	}
	s->queue = clCreateCommandQueue(s->context, dev, 0, &err);
	if (!s->queue || build(s, dev, errbuf, errlen) < 0) {
		if (!s->queue)
			fail(errbuf, errlen, "clCreateCommandQueue", err);
		release_state(s);
		return -1;
	}
	*state = s;
	return 0;
}

static void fini(void *state)
{
	release_state(state);
}

static void teardown(void *state, void *sample)
{
	struct ocl_sample *s = sample;
	(void)state;
	if (s->dx)
		clReleaseMemObject(s->dx);
	if (s->dy)
		clReleaseMemObject(s->dy);
	if (s->dpartial)
		clReleaseMemObject(s->dpartial);
	free(s->x);
	free(s->y);
	free(s->partial);
	free(s);
}

/* Host vectors and device buffers are made here, untimed; the copies
 * into the buffers are part of run. */
static int setup(void *state, uint64_t metric, void **sample)
{
	struct ocl_state *st = state;
	struct ocl_sample *s = calloc(1, sizeof(*s));
	cl_int e1, e2, e3;
	if (!s)
		return -1;
	s->n = metric;
	s->groups = (s->n + st->local - 1) / st->local;
	if (s->groups > MAX_GROUPS)
		s->groups = MAX_GROUPS;
	s->x = adapter_alloc(s->n, sizeof(float));
	s->y = adapter_alloc(s->n, sizeof(float));
	s->partial = adapter_alloc(s->groups, sizeof(float));
	s->dx = clCreateBuffer(st->context, CL_MEM_READ_ONLY, s->n * sizeof(float), NULL, &e1);
	s->dy = clCreateBuffer(st->context, CL_MEM_READ_ONLY, s->n * sizeof(float), NULL, &e2);
	s->dpartial = clCreateBuffer(st->context, CL_MEM_WRITE_ONLY,
				     s->groups * sizeof(float), NULL, &e3);
	if (!s->x || !s->y || !s->partial || !s->dx || !s->dy || !s->dpartial ||
	    s->n > UINT32_MAX) {
		teardown(state, s);
		return -1;
	}
	adapter_fill_random_floats(state, s->x, s->n);
	adapter_fill_random_floats(state, s->y, s->n);
	*sample = s;
	return 0;
}

static cl_int enqueue(struct ocl_state *st, struct ocl_sample *s)
{
	size_t bytes = s->n * sizeof(float);
	cl_uint n = (cl_uint)s->n;
	size_t global = s->groups * st->local;
	cl_int err = clEnqueueWriteBuffer(st->queue, s->dx, CL_FALSE, 0, bytes, s->x, 0, NULL, NULL);
	err |= clEnqueueWriteBuffer(st->queue, s->dy, CL_FALSE, 0, bytes, s->y, 0, NULL, NULL);
	err |= clSetKernelArg(st->kernel, 0, sizeof(cl_mem), &s->dx);
	err |= clSetKernelArg(st->kernel, 1, sizeof(cl_mem), &s->dy);
	err |= clSetKernelArg(st->kernel, 2, sizeof(cl_uint), &n);
	err |= clSetKernelArg(st->kernel, 3, sizeof(cl_mem), &s->dpartial);
	err |= clSetKernelArg(st->kernel, 4, st->local * sizeof(float), NULL);
	if (err != CL_SUCCESS)
		return err;
	err = clEnqueueNDRangeKernel(st->queue, st->kernel, 1, NULL, &global, &st->local,
				     0, NULL, NULL);
	if (err != CL_SUCCESS)
		return err;
	return clEnqueueReadBuffer(st->queue, s->dpartial, CL_TRUE, 0,
				   s->groups * sizeof(float), s->partial, 0, NULL, NULL);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct ocl_state *st = state;
	struct ocl_sample *s = sample;
	(void)metric;
	double t0 = adapter_now(state);
	if (enqueue(st, s) != CL_SUCCESS)
		return -1;
	double sum = 0;
	for (size_t g = 0; g < s->groups; g++)
		sum += s->partial[g];
	s->result = sum;
	return adapter_now(state) - t0;
}

/* Reference: the sum in double on the host. The device sums floats, so
 * allow float rounding relative to the sum of magnitudes. */
static int verify(void *state, void *sample, uint64_t metric)
{
	struct ocl_sample *s = sample;
	double sum = 0, mag = 0;
	(void)state;
	if (s->n != metric)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		sum += (double)s->x[i] * s->y[i];
		mag += fabs((double)s->x[i] * s->y[i]);
	}
	return fabs(s->result - sum) <= 1e-5 * mag + 1e-6 ? 0 : -1;
}

static size_t params_of(void *sample, double *params)
{
	params[0] = (double)((struct ocl_sample *)sample)->n;
	return 1;
}

static const struct adapter_device_impl impl = {
	.init = init,
	.fini = fini,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.verify = verify,
	.params_of = params_of,
};

void sibyl_adapters_opencl_enable(void)
{
	adapter_inner_product_ocl_provide(&impl);
}
