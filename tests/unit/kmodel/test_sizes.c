/* The choice of a kernel's profile sizes by its time (kmodel/sizes.h),
 * with fake timers: deterministic, so each stop reason is checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kmodel/sizes.h"

#include <math.h>

/* A kernel of launch `launch` seconds plus `per` seconds per work-item
 * (per2 per work-item squared), each timing costing `wall` seconds (and
 * `wall_per` more per work-item), and
 * failing from `fail_at` work-items on (0: never); or, with `have`, only
 * the sizes listed there exist (a dataset). */
struct fake {
	double launch, per, per2, wall, wall_per;
	uint64_t fail_at;
	const uint64_t *have;
	size_t nhave;
	size_t calls;
};

static double fake_time(void *ctx, uint64_t want, uint64_t *got, double *cost)
{
	struct fake *f = ctx;

	f->calls++;
	*got = want;
	if (f->have) {
		*got = 0;
		for (size_t i = 0; i < f->nhave && !*got; i++)
			*got = f->have[i] >= want ? f->have[i] : 0;
		if (!*got)
			return NAN;
	}
	double g = (double)*got;

	*cost = f->wall + f->wall_per * g;
	if (f->fail_at && *got >= f->fail_at)
		return NAN;

	return f->launch + f->per * g + f->per2 * g * g;
}

static void test_stops_at_ten_launches(void **state)
{
	(void)state;
	/* 10 us launch, 1 ns per work-item: 10x the launch reference (10.256
	 * us at 256) is first reached at 2^17 = 131072 (141 us; 65536 gives
	 * 75.5 us). */
	struct fake f = { .launch = 10e-6, .per = 1e-9, .wall = 0.2 };
	struct sibyl_kmodel_size_rule r = { .start = 64, .launch_s = 3e-6, .factor = 10,
					    .budget_s = 10 };
	struct sibyl_kmodel_sizes s;

	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_TIME);
	assert_int_equal(s.g[0], 64);
	assert_int_equal(s.to, 131072);
	assert_int_equal(s.from, 16384);
	assert_int_equal(s.step, 16384);
	assert_int_equal(s.n, 12);	/* 64 .. 131072 */
	/* The device model's 3 us is less than the times at 64..256: the
	 * largest of those wins. */
	assert_true(fabs(s.launch_s - (10e-6 + 256e-9)) < 1e-15);
	assert_true(fabs(s.spent_s - 12 * 0.2) < 1e-12);
	/* A device model that says the launch is 20 us: twice as far. */
	r.launch_s = 20e-6;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.to, 262144);
	assert_true(s.launch_s == 20e-6);
}

static void test_quadratic_reference(void **state)
{
	(void)state;
	/* Quadratic, 1 ns x g^2 from 256: the first 3 sizes already work
	 * (66 us .. 1.05 ms), and the slowest of them is the reference, so
	 * the profile goes on to 16x it: 4096 (16.8 ms; 2048 gives 4.19). */
	struct fake f = { .launch = 1e-6, .per2 = 1e-9, .wall = 0.1 };
	struct sibyl_kmodel_size_rule r = { .start = 256, .launch_s = 1e-6, .factor = 10,
					    .budget_s = 100 };
	struct sibyl_kmodel_sizes s;

	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_TIME);
	assert_true(fabs(s.launch_s - (1e-6 + 1024e-9 * 1024)) < 1e-15);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.from, 512);
	assert_int_equal(s.to, 4096);
}

static void test_budget_and_cap(void **state)
{
	(void)state;
	/* Quadratic, 1 ns x g^2, never fast enough: after 2048 (4.19 ms),
	 * 0.06 s spent + 3 x 0.01 (the timings' fixed cost) + 50 x 4 x 4.19
	 * ms = 0.93 s passes the budget of 0.9 s (after 1024: 0.29 s): no size above
	 * 2048 is timed. */
	struct fake f = { .launch = 1e-6, .per2 = 1e-9, .wall = 0.01 };
	struct sibyl_kmodel_size_rule r = { .start = 64, .launch_s = 1e-3, .factor = 1e6,
					    .budget_s = 0.9 };
	struct sibyl_kmodel_sizes s;

	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_BUDGET);
	assert_int_equal(s.to, 2048);
	assert_int_equal(f.calls, 6);
	/* 48 samples a size (-n 48): a profile 10 times dearer; after 1024
	 * (1.05 ms), 0.05 + 0.03 + 50 x 10 x 4 x 1.05 ms = 2.18 s passes
	 * 0.9 s (after 512: 0.60 s). */
	r.samples = 48;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_BUDGET);
	assert_int_equal(s.to, 1024);
	r.samples = 0;
	/* A budget too small for anything: still 3 sizes, 64..256 by 64. */
	r.budget_s = 0.01;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_BUDGET);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.from, 64);
	assert_int_equal(s.to, 256);
	/* No budget, a cap: the largest size not above it. */
	r.budget_s = 0;
	r.cap = 5000;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_CAP);
	assert_int_equal(s.to, 4096);
	assert_int_equal(s.from, 512);
}

/* The walk of rule r over f, which must stop by `stop`. */
static void walk(const struct sibyl_kmodel_size_rule *r, struct fake *f,
		 enum sibyl_kmodel_stop stop, struct sibyl_kmodel_sizes *s)
{
	assert_int_equal(sibyl_kmodel_sizes_choose(r, fake_time, f, s), 0);
	assert_int_equal(s->stop, stop);
}

static void test_host_cost(void **state)
{
	(void)state;
	/* A loaded host: each timing takes 1 s whatever the size (a child
	 * process), the kernel never 1e6 times its launch.  The fixed part
	 * counts once for the next timing and twice for the profile's two
	 * children: after the n-th size, n + 3 s (+ the device's 50 x 4 x
	 * its time, under 0.01 s) passes 10.5 s at n = 8: 64..8192.  (Counted
	 * 18 times, as when the whole cost was taken to grow with the size,
	 * it stopped the walk at 3 sizes.) */
	struct fake f = { .launch = 10e-6, .per = 1e-9, .wall = 1 };
	struct sibyl_kmodel_size_rule r = { .start = 64, .factor = 1e6, .budget_s = 10.5 };
	struct sibyl_kmodel_sizes s;

	walk(&r, &f, SIBYL_STOP_BUDGET, &s);
	assert_true(s.least_cost_s == 1 && s.n == 8 && s.to == 8192);
	/* The part that grows (1e-4 s per work-item on top of 0.1 s; the
	 * fixed part is the least timing, 0.1064 s at 64) counts 18 times:
	 * after 512 (0.1512 s), 0.50 s spent + 3 x 0.1064 + 18 x 0.0448 =
	 * 1.62 s is within 2 s; after 1024 (0.2024 s), 0.70 + 0.32 + 18 x
	 * 0.096 = 2.75 s is not. */
	struct fake w = { .launch = 10e-6, .per = 1e-9, .wall = 0.1, .wall_per = 1e-4 };

	r.budget_s = 2;
	walk(&r, &w, SIBYL_STOP_BUDGET, &s);
	assert_int_equal(s.to, 1024);
	assert_true(fabs(s.least_cost_s - 0.1064) < 1e-12);
}

static void test_failure_and_dataset(void **state)
{
	(void)state;
	/* A size that fails: the profile ends below it. */
	struct fake f = { .launch = 10e-6, .per = 1e-9, .wall = 0.1, .fail_at = 1024 };
	struct sibyl_kmodel_size_rule r = { .start = 128, .factor = 10, .budget_s = 10 };
	struct sibyl_kmodel_sizes s;

	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_FAILED);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.from, 128);
	assert_int_equal(s.step, 128);
	assert_int_equal(s.to, 512);
	/* Failing at the start: no profile. */
	r.start = 2048;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &f, &s), -1);
	assert_int_equal(s.n, 0);
	/* A dataset's sizes 4096 + 8192 i: each doubling rounds up to one
	 * it has, and the walk stops at the cap. */
	const uint64_t have[] = { 4096, 12288, 20480, 28672, 36864, 45056, 53248, 61440 };
	struct fake d = { .launch = 10e-6, .per = 1e-9, .have = have, .nhave = 8 };

	r.start = 4096;
	r.cap = 30720;
	assert_int_equal(sibyl_kmodel_sizes_choose(&r, fake_time, &d, &s), 0);
	assert_int_equal(s.stop, SIBYL_STOP_CAP);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.g[1], 12288);
	assert_int_equal(s.to, 28672);
	assert_int_equal(s.from, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stops_at_ten_launches),
		cmocka_unit_test(test_quadratic_reference),
		cmocka_unit_test(test_budget_and_cap),
		cmocka_unit_test(test_host_cost),
		cmocka_unit_test(test_failure_and_dataset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
