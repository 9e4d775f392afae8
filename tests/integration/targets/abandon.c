/*
 * Wrapped calls that never return to their wrapper (tests/integration/
 * abandon.sh): a callback leaves testlib_visit by longjmp, or calls
 * exit() inside it.  The program prints what it computed, so a traced
 * run can be compared with an untraced one.
 *
 *   abandon longjmp N   N visits left by longjmp from main, each followed
 *                       by testlib_work (which must not be nested)
 *   abandon inner N     an inner visit left by longjmp to the outer
 *                       visit's callback, which returns normally
 *   abandon exit        exit(3) from the callback of a visit
 */
#include "testlib.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static const int values[] = { 1, 2, 3, 4 };

static int jump_at_three(int v, void *arg)
{
	(void)arg;
	if (v == 3)
		longjmp(env, v);
	return v;
}

static int exit_at_two(int v, void *arg)
{
	(void)arg;
	if (v == 2)
		exit(3);
	return v;
}

/* Calls the inner visit, which it leaves by longjmp, then returns. */
static int outer_visit(int v, void *arg)
{
	jmp_buf *saved = arg;
	int r;

	memcpy(saved, &env, sizeof(env));
	if (!(r = setjmp(env)))
		testlib_visit(values, 4, jump_at_three, NULL);
	memcpy(&env, saved, sizeof(env));
	return v + r;
}

/* One round of `mode`: what it computed, or -1 for an unknown mode. */
static int round_of(const char *mode)
{
	jmp_buf saved;
	int r = 0;

	if (!strcmp(mode, "longjmp")) {
		if (!(r = setjmp(env)))
			testlib_visit(values, 4, jump_at_three, NULL);
	} else if (!strcmp(mode, "inner")) {
		r = testlib_visit(values, 2, outer_visit, &saved);
	} else if (!strcmp(mode, "exit")) {
		testlib_visit(values, 4, exit_at_two, NULL);
	} else {
		r = -1;
	}
	return r;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "longjmp";
	long n = argc > 2 ? atol(argv[2]) : 1, sum = 0;

	for (long i = 0; i < n; i++) {
		int r = round_of(mode);

		if (r < 0) {
			fprintf(stderr, "abandon: unknown mode %s\n", mode);
			return 2;
		}
		sum += r + testlib_work((int)i);
	}
	printf("%s %ld\n", mode, sum);
	return 0;
}
