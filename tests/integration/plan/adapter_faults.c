/*
 * The page faults of an adapter's timed runs as a replay makes them,
 * work metrics alternating call by call: adapter_faults ADAPTER.so
 * METRIC... runs setup/run/teardown of the object's first adapter at
 * each METRIC in turn, three rounds, and prints the most minor faults
 * one run of the last two rounds took.  A program that keeps what it
 * made for a size (FFTW's plans) faults nowhere after its first calls.
 */
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long minflt(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

int main(int argc, char **argv)
{
	void *so = argc > 2 ? dlopen(argv[1], RTLD_NOW) : NULL;
	const struct sibyl_adapter *const *(*list)(size_t *) =
		so ? (const struct sibyl_adapter *const *(*)(size_t *))dlsym(so, "sibyl_adapters") : NULL;
	size_t count = 0;
	const struct sibyl_adapter *a = list ? list(&count)[0] : NULL;
	struct sibyl_adapter_config c = { .threads = 1, .seed = 1, .now = now };
	char err[256];
	void *state = NULL;
	long most = 0;

	if (!a || (a->init && a->init(&state, &c, err, sizeof(err)))) {
		fprintf(stderr, "adapter_faults: cannot load or init %s\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	for (int round = 0; round < 3; round++)
		for (int i = 2; i < argc; i++) {
			uint64_t m = strtoull(argv[i], NULL, 10);
			void *sample = NULL;

			if (a->setup && a->setup(state, m, &sample))
				return 2;
			long f0 = minflt();
			double t = a->run(state, sample, m);
			long f = minflt() - f0;

			if (t < 0)
				return 2;
			if (round > 0 && f > most)
				most = f;
			if (a->teardown)
				a->teardown(state, sample);
		}
	if (a->fini)
		a->fini(state);
	printf("%ld\n", most);
	return 0;
}
