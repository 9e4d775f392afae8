#include "testlib.h"

#include <errno.h>

__attribute__((noinline)) int testlib_work(int x)
{
	return x + 1;
}

/* Page `page` of a buffer of this process is written: its first write
 * in a process faults (after a fork, the copy on write does). */
int testlib_touch(int page)
{
	static char pages[64][4096] __attribute__((aligned(4096)));
	volatile char *p = pages[(unsigned)page % 64];

	*p += 1;
	return page + 1;
}

long testlib_recurse(int depth)
{
	/* Through the GOT, so an interposed wrapper sees every level (a
	 * direct self-call may be folded into a loop by the compiler). */
	long (*volatile self)(int) = testlib_recurse;

	return depth <= 0 ? 0 : 1 + self(depth - 1);
}

int testlib_fail(int err)
{
	errno = err;
	return -1;
}

void testlib_sum(const double *in, size_t n, double *out)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += in[i];
	*out = s;
}

int testlib_visit(const int values[], size_t n, testlib_visit_fn fn, void *arg)
{
	int s = 0;

	for (size_t i = 0; i < n; i++)
		s += fn(values[i], arg);
	return s;
}
