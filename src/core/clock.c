#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t sibyl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sibyl_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	/* Keep the tightest of a few tries: a preemption between the reads
	 * would otherwise bias the pair by microseconds. */
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = sibyl_mono_ns();
		uint64_t t = sibyl_tsc();
		uint64_t b = sibyl_mono_ns();

		if (i == 0 || b - a < best) {
			best = b - a;
			*tsc = t;
			*ns = a + (b - a) / 2;
		}
	}
}

void sibyl_clock_calibrate(struct sibyl_clock_cal *cal, uint64_t tsc0, uint64_t ns0,
			   uint64_t min_ns)
{
	uint64_t tsc1, ns1;

	sibyl_clock_pair(&tsc1, &ns1);
	if (ns1 - ns0 < min_ns) {
		struct timespec rest = { 0, (long)(min_ns - (ns1 - ns0)) };

		nanosleep(&rest, NULL);
		sibyl_clock_pair(&tsc1, &ns1);
	}
	cal->ref_tsc = tsc0;
	cal->ref_ns = ns0;
	cal->tsc_per_ns = (double)(tsc1 - tsc0) / (double)(ns1 - ns0);
}

int sibyl_tsc_invariant(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int constant = 0, nonstop = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

static struct sibyl_clock_cal seconds_cal;

void sibyl_seconds_init(void)
{
	uint64_t tsc, ns;

	if (seconds_cal.tsc_per_ns > 0)
		return;
	sibyl_clock_pair(&tsc, &ns);
	sibyl_clock_calibrate(&seconds_cal, tsc, ns, 20 * 1000 * 1000);
}

double sibyl_seconds(void)
{
	return sibyl_tsc_delta_ns(&seconds_cal, sibyl_tsc() - seconds_cal.ref_tsc) * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double sibyl_seconds_resolution(void)
{
	double d[1001];

	sibyl_seconds_init();
	d[0] = sibyl_seconds();
	for (int i = 1; i < 1001; i++)
		d[i] = sibyl_seconds();
	for (int i = 0; i < 1000; i++)
		d[i] = d[i + 1] - d[i];
	qsort(d, 1000, sizeof(*d), cmp_double);
	return d[500];
}
