/*
 * Test host for the instruction counter: runs one kernel of a SPIR
 * bitcode file with fixed, deterministic arguments.
 *
 *   instcount-host --count  FILE.bc KERNEL GSIZE LSIZE ARG...   instrumented, on the
 *                                                                first device; prints the listing
 *   instcount-host --plain  FILE.bc KERNEL GSIZE LSIZE ARG...   uninstrumented; run it under
 *                                                                `oclgrind --inst-counts` to count
 *   instcount-host --static FILE.bc KERNEL                       static counts
 *
 * INSTCOUNT_ROWS=1 selects per-work-item rows instead of 64-bit atomics.
 * `--count -r R` / `--plain -r R` launch R times and print the median
 * device time (event profiling) to stderr as "device_ns N" (bench/ocl).
 *
 * ARG is g:TYPE:N or c:TYPE:N (a __global/__constant buffer of N
 * elements), l:TYPE:N (__local), s:TYPE:VALUE (a scalar). TYPE is
 * char, uchar, short, int, uint, long, ulong, float, double, int4 or
 * float4. Both modes load the very same bitcode with
 * clCreateProgramWithBinary, so Oclgrind interprets exactly the IR that
 * was instrumented, and both fill buffers the same way.
 */
#include "ocl/clutil.h"
#include "ocl/instrument.h"

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

static int die(const char *what, cl_int err)
{
	fprintf(stderr, "instcount-host: %s: %s\n", what, sibyl_cl_error_name(err));
	return 1;
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*size = (size_t)n;
	else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Set kernel argument `i` from its spec; buffers go to `mems`. */
static int set_arg(cl_context ctx, cl_kernel k, cl_uint i, const char *spec, cl_mem *mems)
{
	char kind, tname[16];
	long long n;
	const struct type *t;
	cl_int err;

	if (sscanf(spec, "%c:%15[a-z0-9]:%lld", &kind, tname, &n) != 3 || !(t = find_type(tname)))
		return fprintf(stderr, "instcount-host: bad argument '%s'\n", spec), -1;
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
		fprintf(stderr, "%s\n", log);
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
		fprintf(stderr, "device_ns %llu\n", (unsigned long long)ns[repeat / 2]);
	}
	return 0;
}

static int run(int count, const char *path, const char *kernel, size_t g, size_t l,
	       int nargs, char **args, int repeat)
{
	size_t size = 0;
	void *bc = read_file(path, &size);
	struct sibyl_instrumented in = { 0 };
	cl_platform_id plat;
	cl_device_id dev;
	struct run r;
	cl_mem mems[64] = { 0 }, ctr = NULL;
	cl_int err;

	if (!bc || nargs > 63)
		return fprintf(stderr, "instcount-host: cannot read %s\n", path), 1;
	struct sibyl_instrument_options opt = { .per_item_rows = getenv("INSTCOUNT_ROWS") != NULL };
	if (count && sibyl_instrument_kernel_ex(bc, size, kernel, &opt, &in))
		return 1;
	if (sibyl_cl_pick_device(NULL, NULL, &plat, &dev) ||
	    load(&r, dev, count ? in.bitcode : bc, count ? in.size : size,
		 count ? "-x spir -spir-std=1.2 -cl-kernel-arg-info" : "", kernel))
		return 1;
	for (int i = 0; i < nargs; i++)
		if (set_arg(r.ctx, r.k, (cl_uint)i, args[i], mems))
			return 1;
	size_t bytes = count ? sibyl_instrumented_buffer_size(&in, g, l) : 0;
	if (count) {
		uint64_t *zero = calloc(1, bytes);
		ctr = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &err);
		free(zero);
		if (err || (err = clSetKernelArg(r.k, in.counter_arg, sizeof(ctr), &ctr)))
			return die("counters", err);
	}
	if (launch(&r, ctr, bytes, g, l, repeat))
		return 1;
	if (count) {
		void *host = malloc(bytes);
		struct sibyl_instcounts c;
		err = clEnqueueReadBuffer(r.q, ctr, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
		if (err)
			return die("read counters", err);
		if (sibyl_instrumented_decode(&in, host, bytes, &c))
			return 1;
		sibyl_instcounts_print(stdout, kernel, &c);
		sibyl_instcounts_free(&c);
		free(host);
		sibyl_instrumented_free(&in);
		clReleaseMemObject(ctr);
	}
	for (int i = 0; i < nargs; i++)
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
	if (argc >= 4 && !strcmp(argv[1], "--static")) {
		size_t size = 0;
		void *bc = read_file(argv[2], &size);
		struct sibyl_instcounts c;
		if (!bc || sibyl_static_counts(bc, size, argv[3], &c))
			return 1;
		sibyl_instcounts_print(stdout, argv[3], &c);
		sibyl_instcounts_free(&c);
		free(bc);
		return 0;
	}
	int repeat = 1, a = 2;
	if (argc > 3 && !strcmp(argv[2], "-r")) {
		repeat = atoi(argv[3]);
		a = 4;
	}
	if (argc < a + 4 || repeat < 1 || repeat > 64 ||
	    (strcmp(argv[1], "--count") && strcmp(argv[1], "--plain"))) {
		fprintf(stderr, "usage: instcount-host --count|--plain [-r R] FILE.bc KERNEL GSIZE LSIZE ARG...\n"
				"       instcount-host --static FILE.bc KERNEL\n");
		return 2;
	}
	return run(!strcmp(argv[1], "--count"), argv[a], argv[a + 1], strtoul(argv[a + 2], NULL, 0),
		   strtoul(argv[a + 3], NULL, 0), argc - a - 4, argv + a + 4, repeat);
}
