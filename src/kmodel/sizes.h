/*
 * Which global sizes to profile a kernel at, chosen by its own time
 * (docs/kmodel.md, "Choosing the profile").  A kernel's time at small
 * sizes is mostly the launch, which jitters by 2..10x between samples
 * here, and predict scales the part above the launch: a profile of
 * fixed sizes was all launch for a fast kernel (saxpy at 1K..8K: 5..50
 * us) and far too long for a quadratic one (nbody at 65536: 20 s).
 *
 * The rule: time the kernel at `start` work-items, then at twice that,
 * and so on, until its least time is at least `factor` times the
 * launch reference at a size at least 8 times `start`; or until the
 * next size would take the whole profile past `budget_s` (after 3
 * sizes at least); or past `cap`; or a size fails.  The launch
 * reference is the largest least time of the 3 sizes timed first
 * (mostly launch, which jumps between 3 and 35 us from one size to the
 * next here), or the device model's launch cost when larger.  The
 * profile is then the top size T and the sizes below it down to T/8 by
 * steps of T/8 (the decade under T; the 8 sizes of the former fixed
 * default 1K..8K are this with T = 8K), or, in a dataset, the
 * dataset's sizes in T/8..T.
 *
 * One rule for predict's live profile (probe.c times the kernel) and
 * for evaluate's and train-device's cross validation (timemodel.c times it
 * from a dataset's samples), so that their figures measure what users
 * of predict get.
 */
#ifndef SIBYL_KMODEL_SIZES_H
#define SIBYL_KMODEL_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* The defaults: 30 times the launch (docs/kmodel.md says why), and a
 * third of predict's 30 s target for the whole profile. */
#define SIBYL_KMODEL_LAUNCH_FACTOR 30.0
#define SIBYL_KMODEL_PROFILE_BUDGET 10.0
/* The first size timed, rounded up to a multiple of the local size. */
#define SIBYL_KMODEL_PROFILE_START 64
/* The largest size a live profile times (2^24 work-items): a kernel
 * that never runs 30 times its launch would otherwise walk on until its
 * buffers no longer fit the machine it shares (saxpy reaches 30x at 1M
 * .. 2M work-items here). */
#define SIBYL_KMODEL_PROFILE_CAP ((uint64_t)1 << 24)

struct sibyl_kmodel_size_rule {
	uint64_t start;		/* first size timed */
	uint64_t cap;		/* no size above; 0: none */
	double launch_s;	/* the device model's launch cost; 0: unknown */
	double factor;		/* stop at a least time >= factor x the launch */
	double budget_s;	/* the whole profile's wall time; <= 0: none */
	unsigned samples;	/* launches timed per profiled size; 0: 3 */
};

/* Time the kernel at `want` work-items or, when it cannot time that
 * size, at the next larger one it can (*got; 0: none at all): its least
 * device seconds, and the wall seconds this took in *cost_s; NaN when
 * the size failed. */
typedef double sibyl_kmodel_timer(void *ctx, uint64_t want, uint64_t *got, double *cost_s);

#define SIBYL_KMODEL_WALK_MAX 48

enum sibyl_kmodel_stop {
	SIBYL_STOP_TIME,	/* the top size ran >= factor x the launch */
	SIBYL_STOP_BUDGET,	/* a larger size would pass the budget */
	SIBYL_STOP_CAP,		/* no larger size (the cap, or the dataset's) */
	SIBYL_STOP_FAILED,	/* the next size failed */
};

struct sibyl_kmodel_sizes {
	uint64_t from, to, step;	/* the profile: from..to by step */
	size_t n;			/* sizes timed */
	uint64_t g[SIBYL_KMODEL_WALK_MAX];
	double t[SIBYL_KMODEL_WALK_MAX];	/* their least seconds */
	double factor, budget_s;	/* the rule's */
	double launch_s;		/* the reference the factor multiplied */
	double spent_s;			/* the timings' wall time */
	double least_cost_s;		/* the least of one timing's */
	enum sibyl_kmodel_stop stop;
};

/* Walk the sizes (rule above).  0, or -1 when even `start` could not be
 * timed (s->n is 0). */
int sibyl_kmodel_sizes_choose(const struct sibyl_kmodel_size_rule *r, sibyl_kmodel_timer *time,
			      void *ctx, struct sibyl_kmodel_sizes *s);
/* "time", "budget", "cap", "failed". */
const char *sibyl_kmodel_stop_name(enum sibyl_kmodel_stop s);
/* The wall time the profile of top size T is expected to take at most,
 * per second of T's least time (its 8 sizes, counted and timed, 3
 * samples and a warm-up each: 4.5 T a launch, about 10 launches); it
 * grows with the samples (over_budget). */
#define SIBYL_KMODEL_PROFILE_COST 50.0

#endif
