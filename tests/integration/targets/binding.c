/*
 * A target program for the interposition tests (tests/integration/
 * interpose.sh): what a program sees of libsibyltest when it does not
 * link it.  Built without libsibyltest, it prints what it found, so the
 * test can compare a traced run's output with an untraced one's.
 *
 *   binding weak          a weak reference to testlib_work: NULL here
 *   binding default       dlsym(RTLD_DEFAULT, "testlib_work"): NULL here
 *   binding dlopen LIB N  N calls through dlopen(LIB, RTLD_LOCAL) + dlsym
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int testlib_work(int x) __attribute__((weak));

static int weak(void)
{
	if (testlib_work)
		printf("weak testlib_work: defined, testlib_work(1) = %d\n", testlib_work(1));
	else
		printf("weak testlib_work: NULL\n");
	return 0;
}

static int by_default(void)
{
	printf("dlsym(RTLD_DEFAULT, testlib_work): %s\n",
	       dlsym(RTLD_DEFAULT, "testlib_work") ? "found" : "not found");
	return 0;
}

static int through_dlsym(const char *lib, int n)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*work)(int) = h ? (int (*)(int))dlsym(h, "testlib_work") : NULL;
	long sum = 0;

	if (!work) {
		fprintf(stderr, "binding: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < n; i++)
		sum += work(i);
	printf("dlsym(handle) calls %d, sum %ld\n", n, sum);
	/* Loaded RTLD_LOCAL: still not in the global scope. */
	by_default();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "weak"))
		return weak();
	if (argc == 2 && !strcmp(argv[1], "default"))
		return by_default();
	if (argc == 4 && !strcmp(argv[1], "dlopen"))
		return through_dlsym(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: binding weak | default | dlopen LIB N\n");
	return 2;
}
