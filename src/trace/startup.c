/*
 * What tracing adds to a process's start and exit, beside its calls:
 * loading the runtime and the wrappers (through LD_AUDIT or LD_PRELOAD),
 * the runtime's constructor (its process file, the drainer's ring) and
 * destructor.  A program that runs 15 ms traced spends some 2 ms of it
 * there on this VM, which no per-call cost accounts for.  `sibyl trace`
 * measures it once the command has ended: a do-nothing program, started
 * with and without the environment the command was traced with, and
 * with a drainer as the command had one (the runtime attaches to it), in
 * turns (interposition.h).
 */
#include "trace/interposition.h"

#include "core/clock.h"
#include "core/run.h"
#include "trace/drain.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <signal.h>

/* A dynamically linked program that does nothing: what a process pays
 * to start and exit, and no more. */
#define PROBE "/bin/true"
#define PAIRS 7
#define PROBE_LIMIT_NS 2000000000ull

struct probe {
	struct sibyl_run_spec spec;
	const char *dir;	/* drain into it (ring_bytes), or NULL */
	uint64_t ring_bytes;
};

/* Wall ns from fork to reaped, as `sibyl trace` times its command (the
 * drainer made before, started after the fork, finished after), or NAN
 * when it did not run cleanly. */
static double probe_ns(const struct probe *p)
{
	struct sibyl_child child;
	struct sibyl_run_status st;
	char err[256];
	struct sibyl_drain *d = p->dir ? sibyl_drain_create(p->dir, p->ring_bytes, err,
							    sizeof(err)) : NULL;

	if (p->dir && !d)
		return NAN;
	uint64_t start = sibyl_mono_ns();
	int started = sibyl_run_start(&p->spec, &child, &st);

	if (started == 0 && d && sibyl_drain_start(d, err, sizeof(err)) < 0)
		started = -1;
	if (started == 0)
		sibyl_run_wait(&child, start + PROBE_LIMIT_NS, &st);
	uint64_t end = sibyl_mono_ns();

	sibyl_drain_finish(d);
	return started == 0 && st.outcome == SIBYL_RUN_OK ? (double)(end - start) : NAN;
}

double sibyl_interposition_startup_ns(const char *const *set, const char *const *unset,
				      const char *dir, uint64_t ring_bytes,
				      const volatile sig_atomic_t *stop)
{
	char *argv[] = { PROBE, NULL };
	const struct probe plain = { .spec = { .argv = argv } };
	const struct probe traced = { { .argv = argv, .set = set, .unset = unset },
				      ring_bytes ? dir : NULL, ring_bytes };
	double with[PAIRS], without[PAIRS];

	/* A first pair warms what the command's run left cold. */
	if (isnan(probe_ns(&plain)) || isnan(probe_ns(&traced)))
		return NAN;
	for (int i = 0; i < PAIRS; i++) {
		if (*stop)
			return NAN;
		without[i] = probe_ns(&plain);
		with[i] = probe_ns(&traced);
		if (isnan(without[i]) || isnan(with[i]))
			return NAN;
	}
	/* The fastest of each: a fixed cost, and the runs the machine
	 * disturbed least (medians moved by milliseconds under load). */
	return fmax(0, gsl_stats_min(with, 1, PAIRS) - gsl_stats_min(without, 1, PAIRS));
}
