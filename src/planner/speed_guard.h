/*
 * The speed guard: runs are kept only while the CPU runs at its best
 * speed.
 *
 * A VM's vCPU shares its physical core with work we cannot see.  Here it
 * slows throughput-bound code by 1.3 to 2.3 times for stretches of 0.1 s
 * to several seconds (a 2D convolution: 70 against 118 µs for the same
 * run), while a latency-bound multiply chain hardly notices.  Whole
 * samples then move together, and no statistic over one sample's runs can
 * undo it.  A short reference loop of the same throughput-bound kind
 * (vector floating-point multiply-adds over data in L1), timed before and
 * after each group of runs, tells the phases apart: its time is bimodal,
 * within 5% of its best or 20% and more above it.  A group whose
 * reference ran slow is dropped and measured again once the reference is
 * back to its best, for at most `wait` seconds per sample.
 *
 * The best only moves down while references keep coming calm.  A best
 * that no reference reaches any more (one freak-fast reference, or a
 * machine that stays slower for good) would make every sample wait its
 * whole budget in vain, so after SIBYL_GUARD_GIVE_UPS samples in a row
 * gave up without one calm reference, the best becomes the fastest
 * reference timed since the last calm one.
 *
 * References before and after a group cannot see a slow stretch that
 * comes and goes inside a long run: timing insertion sorts of 30 000
 * ints (65 ms) here, the runs whose two references were calm ran 8.1%
 * above the fastest twentieth on average, a quarter of them more than
 * 10%.  So while a group runs, a timer interrupts the worker's thread
 * every SIBYL_GUARD_INSIDE_PERIOD_NS and times the reference there too;
 * the group counts as calm only if at most a tenth of those references
 * ran slow (then 2.9% above on average, 2.5% of runs more than 10%).
 * Groups shorter than the period are never interrupted.  The
 * references' own time (some 0.2% of a run) stays in the run's, as any
 * interrupt's would: the time a run reports is the adapter's, and an
 * adapter may time only part of its run, or report a computed time.
 */
#ifndef SIBYL_PLANNER_SPEED_GUARD_H
#define SIBYL_PLANNER_SPEED_GUARD_H

#include <stdbool.h>

#define SIBYL_GUARD_GIVE_UPS 3
/* A reference within this fraction above the best counts as calm, unless
 * the guard's tolerance says otherwise (--speed-guard-tolerance). */
#define SIBYL_GUARD_TOLERANCE 0.10

struct sibyl_speed_guard {
	double best;            /* fastest reference seen (seconds) */
	double tolerance;       /* calm while the reference is within best * this */
	double last;            /* the last reference measured */
	double since_calm;      /* fastest reference since the last calm one (0: none) */
	unsigned give_ups;      /* samples in a row that gave up without a calm reference */
	unsigned raised;        /* times the best was raised to since_calm */
	unsigned inside_timed;  /* references timed inside the last watched group */
	unsigned inside_slow;   /* how many of them ran slow */
};

#define SIBYL_GUARD_INSIDE_PERIOD_NS 5000000L
/* A watched group is calm while at most one in this many references
 * inside it ran slow. */
#define SIBYL_GUARD_INSIDE_SLOW_ONE_IN 10

/* Learn the reference's best time by timing it for `seconds`. */
void sibyl_speed_guard_calibrate(struct sibyl_speed_guard *g, double seconds);
/* Time the reference once (the fastest of three back-to-back runs, so an
 * interrupt does not count as a slow phase); true when it ran within the
 * tolerance of its best.  A faster reference lowers the best. */
bool sibyl_speed_guard_calm(struct sibyl_speed_guard *g);
/* The calm test on a reference time `t` already measured (the above
 * without the timing: what a scripted test feeds). */
bool sibyl_speed_guard_note(struct sibyl_speed_guard *g, double t);
/* Time the reference until it is calm or the clock passes deadline
 * (sibyl_seconds() seconds); true when calm. */
bool sibyl_speed_guard_wait(struct sibyl_speed_guard *g, double deadline);
/* A sample spent its budget without the machine coming back to its best;
 * the SIBYL_GUARD_GIVE_UPS-th in a row raises the best (above). */
void sibyl_speed_guard_give_up(struct sibyl_speed_guard *g);

/* Set up the timer that times references inside runs, aimed at the
 * calling thread (the worker's); 0, or -1 when the system has none (the
 * guard then watches only before and after groups). */
int sibyl_speed_guard_inside_init(void);
/* Start timing references inside the group about to run. */
void sibyl_speed_guard_inside_start(const struct sibyl_speed_guard *g);
/* Stop; true when at most one in SIBYL_GUARD_INSIDE_SLOW_ONE_IN of the
 * references timed since the start ran slow (their counts in
 * g->inside_timed and g->inside_slow). */
bool sibyl_speed_guard_inside_stop(struct sibyl_speed_guard *g);

#endif
