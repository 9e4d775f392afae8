/* Reads "bytes seconds" lines, prints the fitted transfer model
 * "latency_s bytes_per_s" for device_fit_numpy.sh to compare with numpy. */
#include "ocl/device/device_profile.h"

#include <stdio.h>

int main(void)
{
	double x[SIBYL_BW_MAX_POINTS], t[SIBYL_BW_MAX_POINTS];
	size_t n = 0;

	while (n < SIBYL_BW_MAX_POINTS && scanf("%lf %lf", &x[n], &t[n]) == 2)
		n++;
	struct sibyl_transfer_model m = sibyl_transfer_fit(x, t, n);

	printf("%.17g %.17g\n", m.latency_s, m.bytes_per_s);
	return m.points ? 0 : 1;
}
