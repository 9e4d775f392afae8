/* How much the worker lost its CPU (preemption.h). */
#define _GNU_SOURCE
#include "planner/preemption.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

uint64_t sibyl_involuntary_switches(void)
{
	struct rusage u;

	return getrusage(RUSAGE_THREAD, &u) ? 0 : (uint64_t)u.ru_nivcsw;
}

void sibyl_cpu_mark(struct sibyl_cpu_mark *m)
{
	struct timespec ts;

	m->preempted = sibyl_involuntary_switches();
	m->cpu = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) ? NAN : ts.tv_sec + ts.tv_nsec * 1e-9;
	m->wall = sibyl_seconds();
}

void sibyl_cpu_ticks(uint64_t *steal, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*steal = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			*total += v[i];
		*steal = v[7];
	}
	fclose(f);
}
