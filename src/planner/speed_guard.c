/* The speed guard's reference loop and its calm test (speed_guard.h). */
#include "planner/speed_guard.h"
#include "planner/worker.h"

#include <math.h>

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
	double start = sibyl_plan_now();

	for (int k = 0; k < PASSES; k++) {
		vec4 w = { 1e-7f * (float)k, 1e-7f * (float)k, 1e-7f * (float)k, 1e-7f * (float)k };

		for (int c = 0; c < LANES; c++)
			acc[c] += w * x[c];
		__asm__ volatile("" : : : "memory");   /* keep every pass */
	}
	return sibyl_plan_now() - start;
}

static double reference(struct sibyl_speed_guard *g)
{
	double t = fmin(reference_once(), fmin(reference_once(), reference_once()));

	if (!(g->best > 0) || t < g->best)
		g->best = t;
	if (!(g->since_calm > 0) || t < g->since_calm)
		g->since_calm = t;
	g->last = t;
	return t;
}

void sibyl_speed_guard_calibrate(struct sibyl_speed_guard *g, double seconds)
{
	double end = sibyl_plan_now() + seconds;

	for (int c = 0; c < LANES; c++)
		x[c] = (vec4){ 0.5f, 0.25f, 0.125f, 0.0625f };
	if (!(g->tolerance > 1))
		g->tolerance = 1.1;
	do
		reference(g);
	while (sibyl_plan_now() < end);
	g->since_calm = 0;   /* calibration is not a give-up's evidence */
	g->give_ups = 0;
}

bool sibyl_speed_guard_calm(struct sibyl_speed_guard *g)
{
	if (reference(g) > g->best * g->tolerance)
		return false;
	g->since_calm = 0;
	g->give_ups = 0;
	return true;
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
		if (sibyl_plan_now() >= deadline)
			return false;
	}
}
