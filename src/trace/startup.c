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
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A dynamically linked program that does nothing: what a process pays
 * to start and exit, and no more.  SIBYL_STARTUP_PROBE names another
 * (a system whose /bin/true is a static or multi-call binary). */
#define PROBE "/bin/true"
#define PAIRS 7
#define PROBE_LIMIT_NS 2000000000ull

struct probe {
	struct sibyl_run_spec spec;
	const char *dir;	/* traced: where the runtime writes, or NULL */
	uint64_t ring_bytes;	/* when not 0, a drainer of rings this size */
};

/* Whether the runtime ran in the probe: its constructor writes the
 * process file (docs/trace-format.md).  A statically linked PROBE would
 * ignore LD_AUDIT and LD_PRELOAD and measure nothing. */
static bool runtime_ran(const char *dir, pid_t pid)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%d.0.proc", dir, (int)pid);
	return access(path, F_OK) == 0;
}

/* Wall ns from fork to reaped, as `sibyl trace` times its command (the
 * drainer made before, started after the fork, finished after), or NAN
 * with why saying what went wrong. */
static double probe_ns(const struct probe *p, char *why, size_t whylen)
{
	struct sibyl_child child;
	struct sibyl_run_status st;
	char err[256] = "";
	bool drained = p->dir && p->ring_bytes;
	struct sibyl_drain *d = drained ? sibyl_drain_create(p->dir, p->ring_bytes, err,
							     sizeof(err)) : NULL;

	if (drained && !d)
		return snprintf(why, whylen, "no drainer: %s", err), NAN;
	uint64_t start = sibyl_mono_ns();
	int started = sibyl_run_start(&p->spec, &child, &st);

	/* A drainer that did not start fails the probe (err says why),
	 * but the child started is still waited for. */
	bool ok = started == 0 && (!d || sibyl_drain_start(d, err, sizeof(err)) == 0);
	pid_t pid = started == 0 ? child.pid : -1;	/* the wait forgets it */

	if (started == 0)
		sibyl_run_wait(&child, start + PROBE_LIMIT_NS, &st);
	uint64_t end = sibyl_mono_ns();

	sibyl_drain_finish(d);
	ok = ok && st.outcome == SIBYL_RUN_OK;
	if (ok && p->dir && !runtime_ran(p->dir, pid))
		return snprintf(why, whylen, "%s ran without the runtime (statically linked?)",
				p->spec.argv[0]), NAN;
	if (ok)
		return (double)(end - start);
	if (*err)
		snprintf(why, whylen, "drainer: %s", err);
	else
		snprintf(why, whylen, "%s %s", p->spec.argv[0],
			 sibyl_run_describe(&st, err, sizeof(err)));
	return NAN;
}

double sibyl_interposition_startup_ns(const char *const *set, const char *const *unset,
				      const char *dir, uint64_t ring_bytes,
				      const volatile sig_atomic_t *stop, char *why,
				      size_t whylen)
{
	const char *probe = getenv("SIBYL_STARTUP_PROBE");
	char *argv[] = { (char *)(probe && *probe ? probe : PROBE), NULL };
	const struct probe plain = { .spec = { .argv = argv } };
	const struct probe traced = { { .argv = argv, .set = set, .unset = unset },
				      dir, ring_bytes };
	double with[PAIRS], without[PAIRS];

	/* A first pair warms what the command's run left cold. */
	if (isnan(probe_ns(&plain, why, whylen)) || isnan(probe_ns(&traced, why, whylen)))
		return NAN;
	for (int i = 0; i < PAIRS; i++) {
		if (*stop)
			return snprintf(why, whylen, "interrupted"), NAN;
		without[i] = probe_ns(&plain, why, whylen);
		with[i] = probe_ns(&traced, why, whylen);
		if (isnan(without[i]) || isnan(with[i]))
			return NAN;
	}
	/* The fastest of each: a fixed cost, and the runs the machine
	 * disturbed least (medians moved by milliseconds under load). */
	return fmax(0, gsl_stats_min(with, 1, PAIRS) - gsl_stats_min(without, 1, PAIRS));
}
