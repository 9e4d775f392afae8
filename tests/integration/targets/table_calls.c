/*
 * A target program for tests/integration/interpose.sh: calls into
 * libsibyltest through a table of function pointers in data, which the
 * dynamic linker fills with R_X86_64_64 relocations (no PLT, no GOT).
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>

/* volatile: the compiler must read the pointer, not call testlib_work. */
static int (*volatile table[])(int) = { testlib_work };

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += table[0](i);
	printf("table calls %d, sum %ld\n", n, sum);
	return 0;
}
