/*
 * Calls bench_work() N times and prints the mean time per call measured
 * around the loop only (start-up, preloading and trace finalisation are
 * outside), plus the peak resident set size of this image (VmHWM: unlike
 * getrusage's ru_maxrss it is not inherited from the parent across exec,
 * so sibyl trace's own footprint does not leak into the figure).
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	volatile long sink = 0;

	bench_work(0);	/* resolve the PLT entry and the wrapper outside the loop */
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		sink += bench_work((int)i);
	double t1 = now_ns();

	printf("ns_per_call %.3f maxrss_kb %ld\n", (t1 - t0) / (double)n, peak_rss_kb());
	return 0;
}
