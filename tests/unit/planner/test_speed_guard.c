/* The speed guard's decisions (planner/speed_guard.h).  Its timings are
 * the machine's, so the tests pin the decision with the best and the
 * tolerance instead of asserting a speed. */
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/clock.h"
#include "planner/speed_guard.h"
#include "planner/worker.h"

static void test_calibrate_learns_a_best(void **state)
{
	struct sibyl_speed_guard g = { 0 };

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.01);
	assert_true(g.best > 0 && g.best < 0.1);
	assert_true(g.tolerance > 1);
	assert_true(g.last >= g.best);
}

/* A best no reference can reach: every reference is slow, and waiting
 * gives up at the deadline. */
static void test_slow_until_deadline(void **state)
{
	struct sibyl_speed_guard g = { 0 };
	double start;

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.001);
	g.best = 1e-15;
	assert_false(sibyl_speed_guard_calm(&g));
	assert_true(g.best == 1e-15);   /* a slower reference leaves the best */
	start = sibyl_seconds();
	assert_false(sibyl_speed_guard_wait(&g, start + 0.02));
	assert_true(sibyl_seconds() >= start + 0.02);
}

/* A best any reference beats: calm at once, and the best moves down to
 * what the reference really takes. */
static void test_faster_reference_lowers_the_best(void **state)
{
	struct sibyl_speed_guard g = { 0 };

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.001);
	g.best = 1e3;
	assert_true(sibyl_speed_guard_wait(&g, sibyl_seconds() + 10));
	assert_true(g.best == g.last && g.best < 1e3);
}

/* A freak-fast best that no reference reaches: the first give-ups leave
 * it, the SIBYL_GUARD_GIVE_UPS-th raises it to the fastest reference
 * timed meanwhile, after which the reference is calm again. */
static void test_best_recovers_after_give_ups(void **state)
{
	struct sibyl_speed_guard g = { 0 };

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.001);
	g.best = 1e-15;
	assert_true(g.since_calm == 0);   /* only references after calibration count */
	for (int k = 1; k <= SIBYL_GUARD_GIVE_UPS; k++) {
		assert_false(sibyl_speed_guard_wait(&g, sibyl_seconds() + 0.002));
		double seen = g.since_calm;

		sibyl_speed_guard_give_up(&g);
		if (k < SIBYL_GUARD_GIVE_UPS) {
			assert_true(g.best == 1e-15);
			continue;
		}
		assert_true(g.best == seen && seen > 1e-15);
		assert_int_equal(g.raised, 1);
	}
	assert_true(g.give_ups == 0 && g.since_calm == 0);
	/* The raised best is a real reference, reachable again; the wide
	 * tolerance covers a slow phase that starts right after it (this VM's
	 * phases run 1.3-2.3 times slower), so only an unreachable best fails. */
	g.tolerance = 3;
	assert_true(sibyl_speed_guard_wait(&g, sibyl_seconds() + 10));
}

/* A calm reference between give-ups starts the count again. */
static void test_calm_resets_give_ups(void **state)
{
	struct sibyl_speed_guard g = { 0 };

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.001);
	for (int k = 0; k < 2 * SIBYL_GUARD_GIVE_UPS; k++) {
		sibyl_speed_guard_give_up(&g);
		g.best = 1e3;                   /* the next reference is calm */
		assert_true(sibyl_speed_guard_calm(&g));
		assert_int_equal(g.give_ups, 0);
	}
	assert_int_equal(g.raised, 0);
}

/* Keep the thread busy for `seconds` of the plan clock. */
static void spin(double seconds)
{
	double end = sibyl_seconds() + seconds;

	while (sibyl_seconds() < end)
		;
}

/* Keep the thread running for 30 ms of its own CPU time: on a loaded
 * machine 30 ms of wall time may give it a few ms, and timer signals
 * pending meanwhile merge into one. */
static void spin_group(void)
{
	struct timespec t;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = t.tv_sec + t.tv_nsec * 1e-9 + 0.03;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while (t.tv_sec + t.tv_nsec * 1e-9 < end);
}

/* Inside a group of 30 ms the timer times the reference about six times:
 * all slow against a best no reference reaches, all calm against one any
 * reference beats.  Between groups the timer is off. */
static void test_references_inside_a_group(void **state)
{
	struct sibyl_speed_guard g = { 0 };

	(void)state;
	sibyl_seconds_init();
	sibyl_speed_guard_calibrate(&g, 0.001);
	assert_int_equal(sibyl_speed_guard_inside_init(), 0);

	g.best = 1e-15;
	sibyl_speed_guard_inside_start(&g);
	spin_group();
	assert_false(sibyl_speed_guard_inside_stop(&g));
	assert_true(g.inside_timed >= 2);
	assert_int_equal(g.inside_slow, g.inside_timed);

	g.best = 1e3;
	sibyl_speed_guard_inside_start(&g);
	spin_group();
	assert_true(sibyl_speed_guard_inside_stop(&g));
	assert_true(g.inside_timed >= 2);
	assert_int_equal(g.inside_slow, 0);

	/* Stopped, the timer times nothing more. */
	unsigned timed = g.inside_timed;

	spin(0.03);
	sibyl_speed_guard_inside_stop(&g);
	assert_int_equal(g.inside_timed, timed);
}

/*
 * A plan on a scripted machine, for the guard's account over a plan
 * (speed_guard.h).  Reference k is calm (1.0 against a best of 1.0) when
 * calm_every divides k and it lies outside [slow_from, slow_to), else
 * slow (1.3).  A sample is GROUPS groups of GROUP seconds of runs, each
 * kept when the references on both sides of it are calm, else dropped
 * and charged to the guard, as sampler.c's rounds do; a sample that gave
 * up is measured again up to three times, as planner.c does.  No clock:
 * the plan's time is the script's.
 */
struct script {
	unsigned long k, calm_every, slow_from, slow_to, period;   /* period 0: none */
};

#define GROUP 0.002
#define GROUPS 3
#define AGAIN 3

static bool scripted_calm(struct sibyl_speed_guard *g, struct script *m)
{
	unsigned long k = m->k++, at = m->period ? k % m->period : k;
	bool calm = k % m->calm_every == 0 && (at < m->slow_from || at >= m->slow_to);

	return sibyl_speed_guard_note(g, calm ? 1.0 : 1.3);
}

/* One sample offered `wait` (short: cut by the account): true when
 * guarded; the guard's spending in *spent. */
static bool scripted_sample(struct sibyl_speed_guard *g, struct script *m, double wait,
			    bool short_wait, double *spent)
{
	bool calm = scripted_calm(g, m);

	*spent = 0;
	for (int kept = 0; kept < GROUPS;) {
		if (*spent >= wait) {
			if (!short_wait)
				sibyl_speed_guard_give_up(g);
			return false;   /* the rest of its runs as they come */
		}
		bool end = scripted_calm(g, m);

		if (calm && end)
			kept++;
		else
			*spent += GROUP;
		calm = end;
	}
	return true;
}

struct scripted_plan {
	double seconds;         /* the plan's time: runs kept, guard spending */
	unsigned guarded, unguarded, short_waits;
};

/* `samples` samples kept, each offered the whole wait of 2 s (account:
 * false, the guard before the account) or what the account offers. */
static void scripted_plan(struct script *m, unsigned samples, bool account,
			  struct scripted_plan *p)
{
	struct sibyl_speed_guard g = { .best = 1.0, .tolerance = 1.1 };
	struct sibyl_guard_budget b;

	memset(p, 0, sizeof(*p));
	sibyl_guard_budget_open(&b, 2.0);
	for (unsigned i = 0; i < samples; i++) {
		for (int again = 0; again <= AGAIN; again++) {
			double wait = account ? sibyl_guard_budget_take(&b) : 2.0, spent;
			bool guarded = scripted_sample(&g, m, wait, wait < 2.0, &spent);

			sibyl_guard_budget_settle(&b, spent, GROUPS * GROUP, guarded);
			p->seconds += spent + GROUPS * GROUP;
			if (guarded) {
				p->guarded++;
				break;
			}
			p->unguarded++;
		}
	}
	p->short_waits = b.short_samples;
}

/* A busy hour: one reference in 25 calm.  Lone calm references keep the
 * best from being raised, so without the account every sample waits its
 * 2 s in vain four times: 450 samples take an hour, and a plan stops at
 * its 600 s limit.  With it, the plan ends within its limit. */
static void test_busy_hour_plan_finishes(void **state)
{
	struct script m = { .calm_every = 25 };
	struct scripted_plan before, after;

	(void)state;
	scripted_plan(&m, 450, false, &before);
	assert_true(before.seconds > 600);
	m.k = 0;
	scripted_plan(&m, 450, true, &after);
	assert_true(after.seconds < 600);
	assert_int_equal(after.guarded, 0);   /* what it could not guard is counted */
	assert_int_equal(after.unguarded, 450 * (AGAIN + 1));
}

/* A calm hour costs the account nothing and offers every sample its
 * whole wait; saved credit then waits out a slow phase of 1.5 s. */
static void test_credit_buys_a_slow_phase(void **state)
{
	struct script m = { .calm_every = 1, .slow_from = 2000, .slow_to = 2750, .period = 0 };
	struct scripted_plan p;

	(void)state;
	scripted_plan(&m, 1000, true, &p);
	assert_true(m.k > 2750);              /* the plan ran through the slow phase */
	assert_int_equal(p.guarded, 1000);
	assert_int_equal(p.unguarded, 0);
	assert_true(p.seconds < 1000 * GROUPS * GROUP + 1.6);
}

/* A busy hour the guard can wait out: each sample meets a slow stretch
 * of 1 s before the machine is back at its best.  Those waits end
 * guarded and cost the account nothing, so no wait is ever cut short
 * (an account that charged them offered 1 s stretches less and less,
 * and most samples gave up). */
static void test_waits_that_end_calm_are_free(void **state)
{
	struct script m = { .calm_every = 1, .slow_from = 0, .slow_to = 500, .period = 504 };
	struct scripted_plan p;

	(void)state;
	scripted_plan(&m, 300, true, &p);
	assert_int_equal(p.guarded, 300);
	assert_int_equal(p.unguarded, 0);
	assert_int_equal(p.short_waits, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_learns_a_best),
		cmocka_unit_test(test_slow_until_deadline),
		cmocka_unit_test(test_faster_reference_lowers_the_best),
		cmocka_unit_test(test_best_recovers_after_give_ups),
		cmocka_unit_test(test_calm_resets_give_ups),
		cmocka_unit_test(test_references_inside_a_group),
		cmocka_unit_test(test_busy_hour_plan_finishes),
		cmocka_unit_test(test_credit_buys_a_slow_phase),
		cmocka_unit_test(test_waits_that_end_calm_are_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
