/* The speed guard's reference loop and its calm test (speed_guard.h). */
#define _GNU_SOURCE
#include "planner/speed_guard.h"
#include "core/clock.h"
#include "planner/worker.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* glibc 2.36 names the thread field only by its union member. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

typedef float vec4 __attribute__((vector_size(16)));

/* 128 floats each: 1 KiB of data, in L1 after the first pass. */
#define LANES 32
#define PASSES 200

static vec4 acc[LANES], x[LANES];

/* PASSES x 128 multiply-adds, loaded and stored through memory as a
 * vectorised stencil or product does (about 2 µs here at best speed).
 * The loop starts a 64-byte line: on this AMD EPYC the same seven
 * instructions took 3.5 µs at best while they straddled two lines (and
 * a slower best lets the guard accept more than one speed). */
#if defined(__GNUC__) && !defined(__clang__)
#define ALIGN_LOOPS __attribute__((optimize("align-loops=64")))
#else
#define ALIGN_LOOPS
#endif

static double __attribute__((noinline)) ALIGN_LOOPS reference_once(void)
{
	double start = sibyl_seconds();

	for (int k = 0; k < PASSES; k++) {
		vec4 w = { 1e-7f * (float)k, 1e-7f * (float)k, 1e-7f * (float)k, 1e-7f * (float)k };

		for (int c = 0; c < LANES; c++)
			acc[c] += w * x[c];
		__asm__ volatile("" : : : "memory");   /* keep every pass */
	}
	return sibyl_seconds() - start;
}

/* The fastest of three back-to-back runs: an interrupt is not a phase. */
static double reference_time(void)
{
	return fmin(reference_once(), fmin(reference_once(), reference_once()));
}

bool sibyl_speed_guard_note(struct sibyl_speed_guard *g, double t)
{
	if (!(g->best > 0) || t < g->best)
		g->best = t;
	if (!(g->since_calm > 0) || t < g->since_calm)
		g->since_calm = t;
	g->last = t;
	if (t > g->best * g->tolerance)
		return false;
	g->since_calm = 0;
	g->give_ups = 0;
	return true;
}

void sibyl_speed_guard_calibrate(struct sibyl_speed_guard *g, double seconds)
{
	double end = sibyl_seconds() + seconds;

	for (int c = 0; c < LANES; c++)
		x[c] = (vec4){ 0.5f, 0.25f, 0.125f, 0.0625f };
	if (!(g->tolerance > 1))
		g->tolerance = 1 + SIBYL_GUARD_TOLERANCE;
	do
		sibyl_speed_guard_note(g, reference_time());
	while (sibyl_seconds() < end);
	g->since_calm = 0;   /* calibration is not a give-up's evidence */
	g->give_ups = 0;
}

bool sibyl_speed_guard_calm(struct sibyl_speed_guard *g)
{
	return sibyl_speed_guard_note(g, reference_time());
}

void sibyl_speed_guard_give_up(struct sibyl_speed_guard *g)
{
	if (++g->give_ups < SIBYL_GUARD_GIVE_UPS || !(g->since_calm > g->best))
		return;
	g->best = g->since_calm;
	g->since_calm = 0;
	g->give_ups = 0;
	g->raised++;
}

bool sibyl_speed_guard_wait(struct sibyl_speed_guard *g, double deadline)
{
	for (;;) {
		if (sibyl_speed_guard_calm(g))
			return true;
		if (sibyl_seconds() >= deadline)
			return false;
	}
}

/* What the timer's handler shares with the worker's thread it
 * interrupts (the only thread that reads or writes it). */
static volatile struct {
	double limit;       /* slow above this (best * tolerance) */
	unsigned timed, slow;
} inside;
static timer_t inside_timer;
static bool inside_ready;

static void time_inside(int sig)
{
	(void)sig;
	inside.timed++;
	if (reference_time() > inside.limit)
		inside.slow++;
}

int sibyl_speed_guard_inside_init(void)
{
	struct sigaction sa;
	struct sigevent ev;

	if (inside_ready)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = time_inside;
	sa.sa_flags = SA_RESTART;       /* the adapter's own calls go on */
	sigemptyset(&sa.sa_mask);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN;
	ev.sigev_notify_thread_id = gettid();
	if (sigaction(SIGRTMIN, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &ev, &inside_timer))
		return -1;
	inside_ready = true;
	return 0;
}

static void arm(long ns)
{
	struct itimerspec its = { { 0, ns }, { 0, ns } };

	timer_settime(inside_timer, 0, &its, NULL);
}

void sibyl_speed_guard_inside_start(const struct sibyl_speed_guard *g)
{
	inside.limit = g->best * g->tolerance;
	inside.timed = inside.slow = 0;
	if (inside_ready)
		arm(SIBYL_GUARD_INSIDE_PERIOD_NS);
}

bool sibyl_speed_guard_inside_stop(struct sibyl_speed_guard *g)
{
	if (inside_ready)
		arm(0);
	g->inside_timed = inside.timed;
	g->inside_slow = inside.slow;
	return SIBYL_GUARD_INSIDE_SLOW_ONE_IN * g->inside_slow <= g->inside_timed;
}
