/*
 * bench/worksize: `ws_loop call N` times N calls of bench_ws (three heap
 * buffers, one stack scalar: four pointer lookups); `ws_loop vary N` the
 * same with pointers that move within the buffers from call to call (so
 * the tracker cannot reuse the last call's answer); `ws_loop alloc N`
 * times N malloc/free pairs with 10,000 other blocks live, so the
 * tracker's ordered set is not trivially small; `ws_loop inspect KIB N
 * [dirty]` times N calls on three buffers of KIB KiB each (dirty: the
 * first is rewritten before each call, outside the wrapped call, so
 * worksize.full finds it changed).  Prints ns per call or per
 * allocation, measured around the loop only.  `ws_loop live N`
 * allocates N blocks of 64 bytes, keeps them, makes one call and prints
 * the resident set (kB): what the tracker keeps per region is the
 * difference it makes between two N.
 */
#include "ws_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIVE 10000

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

#define SHIFTS 64

static double calls(long n, int vary)
{
	double *a = calloc(1024 + SHIFTS, sizeof(double)), *b = calloc(1024 + SHIFTS, sizeof(double));
	double *c = calloc(1024 + SHIFTS, sizeof(double));
	int len = 1024;
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		long k = vary ? i % SHIFTS : 0;

		bench_ws(a + k, b + k, c + k, &len);
	}
	double t = now_ns() - t0;

	free(a);
	free(b);
	free(c);
	return t;
}

static double allocations(long n)
{
	static void *live[LIVE];

	for (int i = 0; i < LIVE; i++)
		live[i] = malloc(16 + i % 512);
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		void *p = malloc(64 + i % 64);

		*(volatile char *)p = 0;
		free(p);
	}
	double t = now_ns() - t0;

	for (int i = 0; i < LIVE; i++)
		free(live[i]);
	return t;
}

static double inspected(long kib, long n, int dirty)
{
	size_t words = (size_t)kib * 128;
	double *a = calloc(words, sizeof(double)), *b = calloc(words, sizeof(double));
	double *c = calloc(words, sizeof(double));
	int len = (int)words;
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		for (size_t j = 0; dirty && j < words; j++)
			a[j] = (double)(i + (long)j);
		bench_ws(a, b, c, &len);
	}
	double t = now_ns() - t0;

	free(a);
	free(b);
	free(c);
	return t;
}

static long resident_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

static int live(long n)
{
	void **v = malloc((size_t)n * sizeof(*v));
	double x[1] = { 0 };
	int one = 1;

	for (long i = 0; v && i < n; i++)
		v[i] = malloc(64);
	bench_ws(x, x, x, &one);	/* the tracker applies what it logged */
	printf("rss_kib %ld\n", resident_kib());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 || argc == 5) {
		if (strcmp(argv[1], "inspect"))
			return fprintf(stderr, "usage: ws_loop inspect KIB N [dirty]\n"), 2;
		long n = atol(argv[3]);

		printf("ns_per_op %.2f\n", inspected(atol(argv[2]), n, argc == 5) / (double)n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "live"))
		return live(atol(argv[2]));
	if (argc != 3 || (strcmp(argv[1], "call") && strcmp(argv[1], "vary") &&
			  strcmp(argv[1], "alloc")))
		return fprintf(stderr, "usage: ws_loop call|vary|alloc|live N | inspect KIB N [dirty]\n"), 2;
	long n = atol(argv[2]);
	double t = !strcmp(argv[1], "alloc") ? allocations(n) : calls(n, !strcmp(argv[1], "vary"));

	printf("ns_per_op %.2f\n", t / (double)n);
	return 0;
}
