/*
 * A target program for the golden tests (tests/integration/golden): one
 * thread making a fixed sequence of calls into libsibyltest, so that the
 * report and export of its trace differ between runs only in times and
 * process and thread ids, which the tests' filter masks.
 */
#include "testlib.h"

#include <errno.h>
#include <stdio.h>

static int twice(int value, void *arg)
{
	(void)arg;
	return 2 * value;
}

int main(void)
{
	static const int ints[] = { 1, 2, 3 };
	double values[100], sum = 0, out;
	long work = 0;

	for (int i = 0; i < 100; i++)
		values[i] = i;
	for (int i = 0; i < 10; i++)
		work += testlib_work(i);
	for (size_t n = 1; n <= 100; n *= 10) {
		testlib_sum(values, n, &out);
		sum += out;
	}
	long depth = testlib_recurse(3);
	int failed = testlib_fail(EINVAL), why = errno;
	int visited = testlib_visit(ints, 3, twice, NULL);

	printf("work %ld, sums %g, depth %ld, fail %d (errno %d), visited %d\n", work, sum, depth,
	       failed, why, visited);
	return 0;
}
