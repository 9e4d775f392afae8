/*
 * A program for plan_replay.sh: sums arrays of the sizes its arguments
 * give, in that order, through libsibyltest's testlib_sum, so a trace of
 * it has a known order of calls.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	double total = 0;

	for (int i = 1; i < argc; i++) {
		size_t n = strtoul(argv[i], NULL, 10);
		double *v = calloc(n + 1, sizeof(*v)), out = 0;

		if (!v)
			return 1;
		testlib_sum(v, n, &out);
		total += out;
		free(v);
	}
	printf("%d sums, total %g\n", argc - 1, total);
	return 0;
}
