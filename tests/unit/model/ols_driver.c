/* Test driver: read "level" then "x y" lines on stdin, fit by least squares
 * from accumulated sums (weighted by 1 / y^2 with --relative) and print
 * intercept, slope, residual variance, the t quantile and the confidence
 * half-widths at the smallest, (weighted) mean and largest x, for
 * ols_sklearn.sh to compare with scikit-learn and scipy. */
#include "model/ols.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int relative = argc > 1 && !strcmp(argv[1], "--relative");
	struct sibyl_ols_sums s = { 0 };
	struct sibyl_ols_fit f;
	double level, x, y, lo = 1e300, hi = -1e300;

	if (scanf("%lf", &level) != 1)
		return 2;
	while (scanf("%lf %lf", &x, &y) == 2) {
		sibyl_ols_add_weighted(&s, x, y, relative ? 1 / (y * y) : 1);
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	if (!sibyl_ols_fit(&s, &f))
		return 1;
	double t = sibyl_t_quantile(level, f.n - 2);

	printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", f.a, f.b, f.s2, t,
	       sibyl_ols_ci_half(&f, lo, t), sibyl_ols_ci_half(&f, f.mean_x, t),
	       sibyl_ols_ci_half(&f, hi, t));
	return 0;
}
