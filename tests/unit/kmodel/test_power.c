/* OCLBoi's power law: ln(count) on ln(g), a law per count, and the
 * prediction interval of a power-law kernel from the same log-log line.
 * A count of g / 64 is a power law of exponent 1 exactly; fitted as
 * ln(1 + count) it came out 0.78, and the interval came from a
 * quadratic in g that fits no g^1.5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kmodel/boi.h"
#include "kmodel/predict.h"

#include <math.h>
#include <string.h>

#define NS 10	/* 5 sizes, 2 samples each */
static const double G[NS] = { 1024, 1024, 2048, 2048, 4096, 4096, 8192, 8192, 16384, 16384 };

static void fit(const double *y, struct sibyl_reg_model *m, enum sibyl_kmodel_law *law)
{
	char err[256] = "";

	assert_int_equal(sibyl_kmodel_power_fit(G, y, NS, m, law, err, sizeof(err)), 0);
}

static void test_exponent_one(void **state)
{
	(void)state;
	double y[NS];
	struct sibyl_reg_model m;
	enum sibyl_kmodel_law law;

	for (size_t i = 0; i < NS; i++)
		y[i] = G[i] / 64;
	fit(y, &m, &law);
	assert_int_equal(law, SIBYL_LAW_POWER);
	assert_true(fabs(m.w[0] - 1) < 1e-9);
	assert_true(fabs(m.b - log(1.0 / 64)) < 1e-9);
	/* 16 times the largest size: 4096, not a bent guess. */
	assert_true(fabs(sibyl_kmodel_power_predict(&m, law, 262144) - 4096) < 1e-6);
	sibyl_reg_free(&m);
}

static void test_exponent_three_halves(void **state)
{
	(void)state;
	double y[NS];
	struct sibyl_reg_model m;
	enum sibyl_kmodel_law law;

	for (size_t i = 0; i < NS; i++)
		y[i] = 3 * pow(G[i], 1.5);
	fit(y, &m, &law);
	assert_true(fabs(m.w[0] - 1.5) < 1e-9);
	double want = 3 * pow(65536, 1.5);

	assert_true(fabs(sibyl_kmodel_power_predict(&m, law, 65536) - want) < 1e-9 * want);
	sibyl_reg_free(&m);
}

static void test_zero_and_mixed(void **state)
{
	(void)state;
	double zero[NS] = { 0 }, mixed[NS];
	struct sibyl_reg_model m;
	enum sibyl_kmodel_law law;

	fit(zero, &m, &law);
	assert_int_equal(law, SIBYL_LAW_ZERO);
	assert_true(sibyl_kmodel_power_predict(&m, law, 1e6) == 0);
	sibyl_reg_free(&m);
	/* 0 at the smallest sizes, then 2 g - 4096: a line, clamped at 0. */
	for (size_t i = 0; i < NS; i++)
		mixed[i] = G[i] <= 2048 ? 0 : 2 * G[i] - 4096;
	mixed[2] = mixed[3] = 0;
	fit(mixed, &m, &law);
	assert_int_equal(law, SIBYL_LAW_LINE);
	double a = sibyl_kmodel_power_predict(&m, law, 100000), b = sibyl_kmodel_power_predict(&m, law, 200000);

	assert_true(b > a && a > 0);
	assert_true(fabs((b - a) / 100000 - m.w[0]) < 1e-9);
	assert_true(sibyl_kmodel_power_predict(&m, law, 1) == 0);
	assert_string_equal(sibyl_kmodel_law_name(law), "line");
	assert_int_equal(sibyl_kmodel_law_of("power", &law), 0);
	assert_int_equal(law, SIBYL_LAW_POWER);
	assert_int_equal(sibyl_kmodel_law_of("power2", &law), -1);
	sibyl_reg_free(&m);
}

/* A kernel of three counts: g^1.5 times a factor per sample (1 +- 2%,
 * data-dependent), g / 64, and one it never runs. */
#define NF 3
static void counts(double *C, double noise)
{
	for (size_t i = 0; i < NS; i++) {
		C[i * NF] = pow(G[i], 1.5) * (1 + noise * (i % 2 ? 1 : -1));
		C[i * NF + 1] = G[i] / 64;
		C[i * NF + 2] = 0;
	}
}

static void test_boi_power(void **state)
{
	(void)state;
	double C[NS * NF], c[NF];
	struct sibyl_kmodel_boi b;
	char err[256] = "";

	counts(C, 0);
	assert_int_equal(sibyl_kmodel_boi_fit(G, C, NS, NF, &b, err, sizeof(err)), 0);
	assert_true(b.power);
	assert_int_equal(b.law[0], SIBYL_LAW_POWER);
	assert_int_equal(b.law[1], SIBYL_LAW_POWER);
	assert_int_equal(b.law[2], SIBYL_LAW_ZERO);
	sibyl_kmodel_boi_predict(&b, 262144, c);
	assert_true(fabs(c[0] - pow(262144, 1.5)) < 1e-9 * c[0]);
	assert_true(fabs(c[1] - 4096) < 1e-9 * 4096);
	assert_true(c[2] == 0);
	sibyl_kmodel_boi_free(&b);
}

static char *names[NF] = { (char *)"mul", (char *)"add", (char *)"fdiv" };
static double costs[NF] = { 1e-9, 2e-9, 5e-9 };

/* predict's interval at g for the kernel of counts(noise), every
 * instruction costing something: high / seconds. */
static double upper(double noise, double g, double *half)
{
	double C[NS * NF], t[NS] = { 0 };
	struct sibyl_kmodel_device m = { 0 };
	struct sibyl_kmodel_kfit k = { 0 };
	struct sibyl_kmodel_prediction p;
	char err[256] = "";

	m.device = k.device = (char *)"cpu";
	m.opt_level = k.opt_level = (char *)"0";
	m.dataset_version = k.dataset_version = 3;
	m.names = names;
	m.tm = (struct sibyl_kmodel_tm){ SIBYL_TM_NONNEG, NF, costs, 0 };
	m.cv.lo = m.cv.hi = 1;
	counts(C, noise);
	k.names = names, k.nf = NF, k.ns = NS, k.g = (double *)G, k.t = t, k.C = C;
	assert_int_equal(sibyl_kmodel_boi_fit(G, C, NS, NF, &k.b, err, sizeof(err)), 0);
	assert_true(k.b.power);
	assert_int_equal(sibyl_kmodel_predict(&m, &k, g, &p, err, sizeof(err)), 0);
	sibyl_kmodel_boi_free(&k.b);
	assert_true(p.low <= p.seconds && p.seconds <= p.high);
	*half = p.oclboi_half / p.seconds;
	return p.high / p.seconds;
}

static void test_interval_loglog(void **state)
{
	(void)state;
	double h;

	/* A weighted count on a power law exactly (only the g^1.5 count
	 * costs): no uncertainty at all, where a quadratic in g left
	 * residuals. */
	costs[1] = 0;
	upper(0, 65536, &h);
	assert_true(h < 1e-9);
	costs[1] = 2e-9;
	/* With noise, the band is a ratio, symmetric in ln g about the
	 * profile's centre (4096): as wide 8 times above as 8 times below. */
	double above = upper(0.02, 32768, &h), below = upper(0.02, 512, &h);

	assert_true(above > 1.001);
	assert_true(fabs(log(above) - log(below)) < 1e-9);
	assert_true(upper(0.02, 4096, &h) < above);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exponent_one),
		cmocka_unit_test(test_exponent_three_halves),
		cmocka_unit_test(test_zero_and_mixed),
		cmocka_unit_test(test_boi_power),
		cmocka_unit_test(test_interval_loglog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
