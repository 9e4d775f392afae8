/*
 * Calls bench_work() N times and prints the mean time per call measured
 * around the loop only (start-up, preloading and trace finalisation are
 * outside), plus the peak resident set size.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	volatile long sink = 0;
	struct rusage ru;

	bench_work(0);	/* resolve the PLT entry and the wrapper outside the loop */
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		sink += bench_work((int)i);
	double t1 = now_ns();

	getrusage(RUSAGE_SELF, &ru);
	printf("ns_per_call %.3f maxrss_kb %ld\n", (t1 - t0) / (double)n, ru.ru_maxrss);
	return 0;
}
