/*
 * Test host for the instruction counter: runs one kernel of a SPIR
 * bitcode file with fixed, deterministic arguments.  This program is the
 * LLVM half (instrumenting, decoding the counters); the kernel runs in
 * instcount-run (instcount_run.c), which links no LLVM: an OpenCL runtime
 * such as PoCL brings its own (core/run.h).
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
#include "ocl/instrument/instrument.h"
#include "core/fs.h"
#include "core/helper.h"
#include "core/log.h"
#include "core/output.h"
#include "core/run.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BITCODE_MAX ((size_t)1 << 30)

/* What instcount-run is told besides the kernel's own arguments. */
struct launch {
	const char *bitcode, *options;
	long counter_arg;	/* -1: none */
	size_t counters_bytes;
	const char *counters_out;
};

/* What instcount-run sends besides notices and its error: the device
 * time, printed on stderr as "device_ns N" (bench/ocl/run reads it). */
static double on_message(void *ctx, json_t *msg)
{
	(void)ctx;
	if (!strcmp(json_string_value(json_object_get(msg, "event")) ?: "", "device_ns"))
		fprintf(stderr, "device_ns %lld\n",
			(long long)json_integer_value(json_object_get(msg, "ns")));
	return 0;
}

/* instcount-run with the host's KERNEL GSIZE LSIZE ARG... (argv[a+1]
 * on) and repeat: 0 when it ran the kernel. */
static int run_kernel(const struct launch *l, int repeat, int argc, char **argv, int a)
{
	char *path = sibyl_run_helper_path("instcount-run", NULL);
	char rep[16], ctr[32], bytes[32];
	char **cmd = calloc((size_t)argc + 8, sizeof(*cmd));
	struct sibyl_helper h = { cmd, on_message, NULL, 0, 0 };
	struct sibyl_run_status st;
	char err[1024];
	int n = 0;

	snprintf(rep, sizeof(rep), "%d", repeat);
	snprintf(ctr, sizeof(ctr), "%ld", l->counter_arg);
	snprintf(bytes, sizeof(bytes), "%zu", l->counters_bytes);
	cmd[n++] = path;
	cmd[n++] = (char *)l->bitcode;
	for (int i = a + 1; i < a + 4; i++)	/* KERNEL GSIZE LSIZE */
		cmd[n++] = argv[i];
	cmd[n++] = rep;
	cmd[n++] = (char *)l->options;
	cmd[n++] = l->counter_arg < 0 ? "-" : ctr;
	cmd[n++] = bytes;
	cmd[n++] = (char *)(l->counters_out ? l->counters_out : "-");
	for (int i = a + 4; i < argc; i++)
		cmd[n++] = argv[i];
	if (sibyl_helper_run(&h, &st, err, sizeof(err)) < 0 ||
	    sibyl_helper_failed("instcount-run", &st, err, sizeof(err)) < 0)
		fprintf(stderr, "instcount-host: %s\n", err);
	free(cmd);
	free(path);
	return st.outcome == SIBYL_RUN_OK ? 0 : 1;
}

/* Instrument, run, decode the counters and print the listing. */
static int count(const char *bc, size_t size, int repeat, int argc, char **argv, int a)
{
	struct sibyl_instrument_options opt = { .per_item_rows = getenv("INSTCOUNT_ROWS") != NULL };
	struct sibyl_instrumented in = { 0 };
	const char *kernel = argv[a + 1];
	char *dir = sibyl_private_tmpdir("instcount"), *file, *ctr, *counters = NULL;
	size_t g = strtoul(argv[a + 2], NULL, 0), l = strtoul(argv[a + 3], NULL, 0), got = 0;
	struct sibyl_instcounts c;
	char err[512] = "";
	int rc = 1;

	if (!dir || sibyl_instrument_kernel_ex(bc, size, kernel, &opt, &in, err, sizeof(err)))
		return fprintf(stderr, "instcount-host: %s\n", err), 1;
	file = sibyl_path_join(dir, "instrumented.bc");
	ctr = sibyl_path_join(dir, "counters");
	struct launch job = { file, "-x spir -spir-std=1.2 -cl-kernel-arg-info", in.counter_arg,
			      sibyl_instrumented_buffer_size(&in, g, l), ctr };

	if (sibyl_output_write(file, in.bitcode, in.size, 0600) == 0 &&
	    run_kernel(&job, repeat, argc, argv, a) == 0 &&
	    (counters = sibyl_read_file(ctr, job.counters_bytes, &got, NULL, 0)) &&
	    sibyl_instrumented_decode(&in, counters, got, &c, err, sizeof(err)) == 0) {
		sibyl_instcounts_print(stdout, kernel, &c);
		sibyl_instcounts_free(&c);
		rc = 0;
	}
	unlink(file);
	unlink(ctr);
	rmdir(dir);
	free(counters);
	free(file);
	free(ctr);
	free(dir);
	sibyl_instrumented_free(&in);
	return rc;
}

int main(int argc, char **argv)
{
	size_t size = 0;

	sibyl_set_notice_handler(sibyl_notice_print, NULL);	/* instcount-run's */

	if (argc >= 4 && !strcmp(argv[1], "--static")) {
		void *bc = sibyl_read_file(argv[2], BITCODE_MAX, &size, NULL, 0);
		struct sibyl_instcounts c;
		char err[512] = "";

		if (!bc || sibyl_static_counts(bc, size, argv[3], &c, err, sizeof(err)))
			return fprintf(stderr, "instcount-host: %s\n", err), 1;
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
	if (!strcmp(argv[1], "--plain")) {
		struct launch plain = { argv[a], "", -1, 0, NULL };

		return run_kernel(&plain, repeat, argc, argv, a);
	}
	void *bc = sibyl_read_file(argv[a], BITCODE_MAX, &size, NULL, 0);

	if (!bc)
		return fprintf(stderr, "instcount-host: cannot read %s\n", argv[a]), 1;
	int rc = count(bc, size, repeat, argc, argv, a);

	free(bc);
	return rc;
}
