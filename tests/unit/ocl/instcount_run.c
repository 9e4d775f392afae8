/*
 * The OpenCL half of the instruction counter's test host (instcount_host.c
 * is the LLVM half): runs one kernel of a SPIR bitcode file with fixed,
 * deterministic arguments on the first device.  A program of its own,
 * linking no LLVM, because OpenCL runtimes bring theirs (core/run.h).
 *
 *   instcount-run FILE.bc KERNEL GSIZE LSIZE REPEAT OPTIONS CTR_ARG CTR_BYTES CTR_OUT ARG...
 *
 * CTR_ARG is the index of the counters argument the instrumentation
 * added ("-": none); the counters buffer of CTR_BYTES is zeroed before
 * each launch and written to the file CTR_OUT after the last.  REPEAT > 1
 * or $INSTCOUNT_TIME sends the median device time (event profiling) as
 * {"event":"device_ns","ns":N}.  ARG as in instcount_host.c.  Like every
 * helper it reports on descriptor 3 (core/helper.h): its error line, and
 * the OpenCL compiler's log as a diagnostic notice; it prints nothing.
 */
#include "ocl/common/clutil.h"
#include "core/fs.h"
#include "core/helper.h"
#include "core/log.h"
#include "core/message.h"
#include "core/output.h"
#include "core/run.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct type {
	const char *name;
	size_t size;
	int lanes;
	int is_float;
};

static const struct type types[] = {
	{ "char", 1, 1, 0 }, { "uchar", 1, 1, 0 }, { "short", 2, 1, 0 }, { "int", 4, 1, 0 },
	{ "uint", 4, 1, 0 }, { "long", 8, 1, 0 }, { "ulong", 8, 1, 0 }, { "float", 4, 1, 1 },
	{ "double", 8, 1, 1 }, { "int4", 16, 4, 0 }, { "float4", 16, 4, 1 },
};

static const struct type *find_type(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, name))
			return &types[i];
	return NULL;
}

/* Deterministic contents: small signed integers, or quarters for floats. */
static void fill(const struct type *t, void *buf, size_t n)
{
	size_t lane_size = t->size / t->lanes;

	for (size_t i = 0; i < n * t->lanes; i++) {
		long v = (long)((i * 7919u) % 1000u) - 200;
		char *p = (char *)buf + i * lane_size;
		if (t->is_float && lane_size == 4) {
			float f = (float)v * 0.25f;
			memcpy(p, &f, 4);
		} else if (t->is_float) {
			double d = (double)v * 0.25;
			memcpy(p, &d, 8);
		} else {
			int64_t x = v;
			memcpy(p, &x, lane_size);	/* little endian: low bytes */
		}
	}
}

/* The one error line, sent to instcount-host before exiting. */
static char error_line[1024];

static int die(const char *what, cl_int err)
{
	return -sibyl_seterr(error_line, sizeof(error_line), "instcount-run: %s: %s", what,
			     sibyl_cl_error_name(err));
}

/* Set kernel argument `i` from its spec; buffers go to `mems`. */
static int set_arg(cl_context ctx, cl_kernel k, cl_uint i, const char *spec, cl_mem *mems)
{
	char kind, tname[16];
	long long n;
	const struct type *t;
	cl_int err;

	if (sscanf(spec, "%c:%15[a-z0-9]:%lld", &kind, tname, &n) != 3 || !(t = find_type(tname)))
		return sibyl_seterr(error_line, sizeof(error_line), "instcount-run: bad argument "
				    "'%s'", spec);
	if (kind == 'l')
		err = clSetKernelArg(k, i, t->size * (size_t)n, NULL);
	else if (kind == 's') {
		char val[16] = { 0 };
		double d = (double)n;
		float f = (float)n;
		if (t->is_float)
			memcpy(val, t->size == 4 ? (void *)&f : (void *)&d, t->size);
		else
			memcpy(val, &n, t->size);
		err = clSetKernelArg(k, i, t->size, val);
	} else {
		void *host = calloc((size_t)n, t->size);
		if (!host)
			return -1;
		fill(t, host, (size_t)n);
		mems[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
					 t->size * (size_t)n, host, &err);
		free(host);
		if (!err)
			err = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
	}
	return err ? die(spec, err), -1 : 0;
}

struct run {
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k;
};

static int load(struct run *r, cl_device_id dev, const void *bc, size_t size,
		const char *options, const char *kernel)
{
	cl_int err, status;
	const unsigned char *bin = bc;

	r->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (err)
		return die("clCreateContext", err);
	r->q = clCreateCommandQueue(r->ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err)
		return die("clCreateCommandQueue", err);
	r->prog = clCreateProgramWithBinary(r->ctx, 1, &dev, &size, &bin, &status, &err);
	if (err)
		return die("clCreateProgramWithBinary", err);
	err = clBuildProgram(r->prog, 1, &dev, options, NULL, NULL);
	if (err) {
		char log[8192] = "";
		clGetProgramBuildInfo(r->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
		sibyl_notice(SIBYL_NOTICE_DIAG, "%s", log);
		return die("clBuildProgram", err);
	}
	r->k = clCreateKernel(r->prog, kernel, &err);
	return err ? die("clCreateKernel", err) : 0;
}

static int by_value(const void *a, const void *b)
{
	cl_ulong x = *(const cl_ulong *)a, y = *(const cl_ulong *)b;
	return x < y ? -1 : x > y;
}

/* Launch `repeat` times (zeroing the counters before each), print the
 * median device time when timing. Counts are those of the last launch. */
static int launch(struct run *r, cl_mem ctr, size_t bytes, size_t g, size_t l, int repeat)
{
	cl_ulong ns[64];
	cl_int err;

	for (int i = 0; i < repeat; i++) {
		cl_event ev;
		cl_ulong start = 0, end = 0;
		if (ctr) {
			cl_ulong zero = 0;
			err = clEnqueueFillBuffer(r->q, ctr, &zero, sizeof(zero), 0, bytes, 0, NULL, NULL);
			if (err)
				return die("zero counters", err);
		}
		err = clEnqueueNDRangeKernel(r->q, r->k, 1, NULL, &g, &l, 0, NULL, &ev);
		if (err || (err = clFinish(r->q)))
			return die("run", err);
		clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL);
		clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL);
		clReleaseEvent(ev);
		ns[i] = end - start;
	}
	if (repeat > 1 || getenv("INSTCOUNT_TIME")) {
		qsort(ns, (size_t)repeat, sizeof(ns[0]), by_value);
		json_t *msg = json_pack("{s:s, s:I}", "event", "device_ns", "ns",
					(json_int_t)ns[repeat / 2]);

		sibyl_msg_send(SIBYL_RUN_REPORT_FD, msg);
		json_decref(msg);
	}
	return 0;
}

struct job {
	const char *bitcode, *kernel, *options, *counters_out;
	size_t g, l, counters_bytes;
	long counter_arg;	/* -1: an uninstrumented kernel */
	int repeat, nargs;
	char **args;
};

/* The counters after the last launch, into job->counters_out. */
static int save_counters(struct run *r, cl_mem ctr, const struct job *j)
{
	void *host = malloc(j->counters_bytes);
	cl_int err;

	if (!host)
		return -sibyl_seterr(error_line, sizeof(error_line), "instcount-run: out of memory");
	err = clEnqueueReadBuffer(r->q, ctr, CL_TRUE, 0, j->counters_bytes, host, 0, NULL, NULL);
	if (err)
		return free(host), die("read counters", err);
	int rc = sibyl_output_write(j->counters_out, host, j->counters_bytes, 0600) ? 1 : 0;

	if (rc)
		sibyl_seterr_errno(error_line, sizeof(error_line), "instcount-run: %s",
				   j->counters_out);
	free(host);
	return rc;
}

static int run(const struct job *j)
{
	size_t size = 0;
	void *bc = sibyl_read_file(j->bitcode, (size_t)1 << 30, &size, NULL, 0);
	cl_platform_id plat;
	cl_device_id dev;
	struct run r = { 0 };
	cl_mem mems[64] = { 0 }, ctr = NULL;
	cl_int err;

	if (!bc || j->nargs > 63)
		return -sibyl_seterr(error_line, sizeof(error_line), "instcount-run: cannot read %s",
				     j->bitcode);
	if (sibyl_cl_pick_device(NULL, NULL, &plat, &dev, error_line, sizeof(error_line)))
		return 1;
	if (load(&r, dev, bc, size, j->options, j->kernel))
		return 1;
	for (int i = 0; i < j->nargs; i++)
		if (set_arg(r.ctx, r.k, (cl_uint)i, j->args[i], mems))
			return 1;
	if (j->counter_arg >= 0) {
		uint64_t *zero = calloc(1, j->counters_bytes);
		ctr = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
				     j->counters_bytes, zero, &err);
		free(zero);
		if (err || (err = clSetKernelArg(r.k, (cl_uint)j->counter_arg, sizeof(ctr), &ctr)))
			return die("counters", err);
	}
	if (launch(&r, ctr, j->counters_bytes, j->g, j->l, j->repeat) ||
	    (ctr && save_counters(&r, ctr, j)))
		return 1;
	if (ctr)
		clReleaseMemObject(ctr);
	for (int i = 0; i < j->nargs; i++)
		if (mems[i])
			clReleaseMemObject(mems[i]);
	clReleaseKernel(r.k);
	clReleaseProgram(r.prog);
	clReleaseCommandQueue(r.q);
	clReleaseContext(r.ctx);
	free(bc);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 10 || fcntl(SIBYL_RUN_REPORT_FD, F_GETFD) < 0)
		return sibyl_err("usage: instcount-run FILE.bc KERNEL GSIZE LSIZE REPEAT OPTIONS "
				 "CTR_ARG CTR_BYTES CTR_OUT ARG... (started by instcount-host)"), 2;
	sibyl_helper_report_to(SIBYL_RUN_REPORT_FD);
	struct job j = {
		.bitcode = argv[1], .kernel = argv[2], .options = argv[6], .counters_out = argv[9],
		.g = strtoul(argv[3], NULL, 0), .l = strtoul(argv[4], NULL, 0),
		.repeat = atoi(argv[5]), .counters_bytes = strtoul(argv[8], NULL, 0),
		.counter_arg = strcmp(argv[7], "-") ? strtol(argv[7], NULL, 0) : -1,
		.nargs = argc - 10, .args = argv + 10,
	};

	if (j.repeat < 1 || j.repeat > 64)
		return 2;
	int rc = run(&j);

	if (rc)
		sibyl_helper_error(SIBYL_RUN_REPORT_FD, error_line);
	return rc;
}
