/*
 * sibyl-plan-one-time: where `sibyl plan` measures what swapping an
 * implementation in costs a program once (one_time.h).  Internal,
 * started by sibyl only.
 *
 *   sibyl-plan-one-time ADAPTER.so NAME METRIC THREADS SEED [PLATFORM DEVICE]
 *   (an empty PLATFORM or DEVICE: the adapter's default)
 *   sibyl-plan-one-time --bare
 *
 * It loads the adapter's shared object, runs init, then one run of
 * METRIC (the first call) and WARM_RUNS more (the same work warm), and
 * reports on SIBYL_RUN_REPORT_FD; then it waits for the end of its
 * requests (SIBYL_RUN_REQUEST_FD), runs fini and exits as a program
 * does, destructors included, so the parent can time that exit.
 * --bare only reports and exits: the exit every process pays.
 *
 * A program of its own that links nothing but the C library: loading a
 * library costs more in a process with more libraries in its global
 * scope (each symbol the library imports is looked up in every one), and
 * sibyl-plan-worker links GSL, jansson and libOpenCL.  OpenBLAS's dlopen
 * took 2.9 ms in a C program linking libc alone and 4.5 ms with those
 * libraries linked too (medians of 30, interleaved).  A program swapping
 * OpenBLAS in is more often the former.
 */
#define _GNU_SOURCE
#include "core/run.h"
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WARM_RUNS 3

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One line of JSON on the report descriptor; msg is escaped. */
static void report(int status, const char *msg, double init, double first, double warm)
{
	char text[512];
	size_t n = 0;

	for (const char *c = msg ? msg : ""; *c && n + 7 < sizeof(text); c++)
		n += (unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ?
			     (size_t)snprintf(text + n, sizeof(text) - n, "\\u%04x", (unsigned char)*c) :
			     (size_t)snprintf(text + n, sizeof(text) - n, "%c", *c);
	text[n] = '\0';
	dprintf(SIBYL_RUN_REPORT_FD,
		"{\"status\": %d, \"msg\": \"%s\", \"init_seconds\": %.9g, "
		"\"first_run_seconds\": %.9g, \"first_sample_seconds\": %.9g}\n",
		status, text, isfinite(init) ? init : -1, isfinite(first) ? first : -1,
		isfinite(warm) ? warm : -1);
}

/* Block until the parent closes our requests: the exit it times starts
 * there. */
static void await_end(void)
{
	char buf[64];

	while (read(SIBYL_RUN_REQUEST_FD, buf, sizeof(buf)) > 0)
		continue;
}

/* setup, run, teardown: the run's seconds, negative on failure. */
static double run_once(const struct sibyl_adapter *a, void *state, uint64_t metric)
{
	void *sample = NULL;

	if (a->setup && a->setup(state, metric, &sample))
		return -1;
	double seconds = a->run(state, sample, metric);

	if (a->teardown)
		a->teardown(state, sample);
	return seconds;
}

static const struct sibyl_adapter *find(const char *path, const char *name, char *err,
					size_t errlen)
{
	char file[4096];

	/* The planner's loader does the same: a bare name is a file here. */
	snprintf(file, sizeof(file), "%s%s", strchr(path, '/') ? "" : "./", path);
	void *dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	sibyl_adapters_fn fn;
	void *sym = dl ? dlsym(dl, SIBYL_ADAPTERS_SYMBOL) : NULL;
	size_t count = 0;

	if (!dl)
		return snprintf(err, errlen, "%s", dlerror()), NULL;
	memcpy(&fn, &sym, sizeof(fn));
	const struct sibyl_adapter *const *items = fn ? fn(&count) : NULL;

	for (size_t i = 0; i < count; i++)
		if (items[i] && items[i]->name && !strcmp(items[i]->name, name))
			return items[i];
	snprintf(err, errlen, "%s: no adapter %s", path, name);
	return NULL;
}

static int measure(char **argv, int argc)
{
	char err[256] = "";
	struct sibyl_adapter_config cfg = { .threads = (unsigned)strtoul(argv[4], NULL, 10),
					    .seed = strtoull(argv[5], NULL, 10),
					    .platform = argc > 6 && *argv[6] ? argv[6] : NULL,
					    .device = argc > 7 && *argv[7] ? argv[7] : NULL,
					    .now = now };
	uint64_t metric = strtoull(argv[3], NULL, 10);
	void *state = NULL;
	double start = now();
	const struct sibyl_adapter *a = find(argv[1], argv[2], err, sizeof(err));

	if (!a || (a->init && a->init(&state, &cfg, err, sizeof(err)))) {
		report(-1, err[0] ? err : "init failed", NAN, NAN, NAN);
		return 1;
	}
	double init = now() - start, first = run_once(a, state, metric), warm = INFINITY;

	for (int i = 0; i < WARM_RUNS && first >= 0; i++) {
		double t = run_once(a, state, metric);

		warm = t >= 0 && t < warm ? t : warm;
	}
	if (first < 0 || !isfinite(warm))
		report(-1, "a run failed", init, NAN, NAN);
	else
		report(0, NULL, init, first, warm);
	await_end();
	if (a->fini)
		a->fini(state);
	return 0;
}

int main(int argc, char **argv)
{
	if (fcntl(SIBYL_RUN_REPORT_FD, F_GETFD) < 0 || fcntl(SIBYL_RUN_REQUEST_FD, F_GETFD) < 0 ||
	    !((argc == 2 && !strcmp(argv[1], "--bare")) || argc == 6 || argc == 8)) {
		fprintf(stderr, "sibyl-plan-one-time: an internal helper of `sibyl plan`\n");
		return 2;
	}
	if (argc == 2) {
		report(0, NULL, 0, 0, 0);
		await_end();
		return 0;
	}
	/* exit, not _exit: the program's exit runs the library's destructors. */
	exit(measure(argv, argc));
}
