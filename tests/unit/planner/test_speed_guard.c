/* The speed guard's decisions (planner/speed_guard.h).  Its timings are
 * the machine's, so the tests pin the decision with the best and the
 * tolerance instead of asserting a speed. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_learns_a_best),
		cmocka_unit_test(test_slow_until_deadline),
		cmocka_unit_test(test_faster_reference_lowers_the_best),
		cmocka_unit_test(test_best_recovers_after_give_ups),
		cmocka_unit_test(test_calm_resets_give_ups),
		cmocka_unit_test(test_references_inside_a_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
