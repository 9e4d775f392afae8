/*
 * Test shim preloaded into sibyl itself: when SIBYL_TEST_SIGNAL_AT_RENAME
 * names a signal, raise it instead of the first rename, i.e. at the moment
 * a command has written its output in full but not yet put it in place.
 * This is how the tests interrupt a command at a known point without
 * racing it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static void maybe_raise(void)
{
	const char *sig = getenv("SIBYL_TEST_SIGNAL_AT_RENAME");

	if (sig && *sig)
		raise(atoi(sig));
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");

	maybe_raise();
	return real(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	int (*real)(int, const char *, int, const char *) =
		(int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");

	maybe_raise();
	return real(fromfd, from, tofd, to);
}
