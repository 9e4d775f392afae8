/* How much the worker lost its CPU to other tasks: its involuntary
 * context switches, the process's CPU time against the wall time, and
 * the CPUs' steal (time the hypervisor gave to other guests). */
#ifndef SIBYL_PLANNER_PREEMPTION_H
#define SIBYL_PLANNER_PREEMPTION_H

#include <stdint.h>

struct sibyl_cpu_mark {
	double wall, cpu;          /* sibyl_seconds(), the process's CPU seconds */
	uint64_t preempted;        /* the calling thread's involuntary switches */
};

/* The calling thread's involuntary context switches so far. */
uint64_t sibyl_involuntary_switches(void);
/* Mark now, to compare a later mark with. */
void sibyl_cpu_mark(struct sibyl_cpu_mark *m);
/* The CPUs' steal and total ticks so far (/proc/stat's first line; 0 and
 * 0 without it). */
void sibyl_cpu_ticks(uint64_t *steal, uint64_t *total);

#endif
