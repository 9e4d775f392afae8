/*
 * Piecewise-linear performance profiles: an ordered set of points
 * (work metric, seconds) predicting any work metric by interpolating the
 * nearest two (docs/profile-format.md).  Profiles may also carry the
 * samples and segments they came from, which implementation wins where
 * (lowest envelopes), and free-form provenance and statistics.
 */
#ifndef SIBYL_MODEL_PROFILE_H
#define SIBYL_MODEL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;

#define SIBYL_PROFILE_FORMAT "sibyl-profile"
#define SIBYL_PROFILE_VERSION 1
/* The largest profile file read: a plan of millions of samples fits. */
#define SIBYL_PROFILE_MAX_BYTES ((size_t)256 << 20)

struct sibyl_point {
	double x, y;
};

/* One regression segment of the chain: y = a + b x over [from, to]. */
struct sibyl_segment {
	double from, to, a, b;
	unsigned samples, out_of_range;
};

/* [from, to] is predicted by the implementation named `name`. */
struct sibyl_piece {
	double from, to;
	char *name;
};

struct sibyl_profile {
	char *name;                 /* implementation (adapter) name */
	char *work_metric;          /* what one unit of work metric is */
	double lo, hi;              /* range of interest */
	bool complete;              /* false: the points cover only part of it */
	struct sibyl_point *points;
	size_t npoints;
	struct sibyl_point *samples;
	size_t nsamples;
	struct sibyl_segment *segments;
	size_t nsegments;
	struct sibyl_piece *pieces;
	size_t npieces;
	struct json_t *provenance;  /* object or NULL: machine, adapter, parameters */
	struct json_t *stats;       /* object or NULL: planner statistics */
	/* object or NULL: what a plan guided by a program's calls sampled
	 * ("metrics", ascending) and what share of the program's time that
	 * covers (docs/profile-format.md) */
	struct json_t *coverage;
};

void sibyl_profile_free(struct sibyl_profile *p);

/* Predicted seconds at x: linear interpolation between the two nearest
 * points, extrapolating the first/last piece outside them.  NaN when the
 * profile has no point. */
double sibyl_profile_eval(const struct sibyl_profile *p, double x);

/* Where a prediction at x stands: among the work metrics the profile
 * measured, or interpolated between two metrics a guided plan sampled
 * (one guided by a program's calls measures those metrics only), or
 * extrapolated below its first point or above its last. */
enum sibyl_cover {
	SIBYL_COVER_INSIDE,
	SIBYL_COVER_BETWEEN,
	SIBYL_COVER_BELOW,
	SIBYL_COVER_ABOVE,
};
enum sibyl_cover sibyl_profile_cover(const struct sibyl_profile *p, double x);
/* The work metrics its points span, [*a, *b]; false without points. */
bool sibyl_profile_covered(const struct sibyl_profile *p, double *a, double *b);

/* What a process's first call took beyond the same work run warm, from
 * the planner's one-time costs (stats.one_time: first_call_seconds less
 * first_call_sample_seconds, at least 0): the library's lazy set-up
 * (OpenSSL loads its provider in the first EVP_Digest, 1.1-1.7 ms), which
 * a profile of warm calls leaves out.  -1 when the profile has none. */
double sibyl_profile_first_call_excess(const struct sibyl_profile *p);
/* What a process's first call at work metric x takes beyond the
 * profile's time there (stats.one_time.first_calls: each metric's first
 * run in the planning worker beside its other runs there, timed alike,
 * planner/first_calls.h): a library that keeps state per size makes it
 * then (FFTW's first execute of a plan faults its output in).  Their
 * ratio applied to the profile's time there (at least 0), so the excess
 * is in the points' time base, whichever base the runs were timed in (a
 * guided plan's first runs come unguarded, its points at the machine's
 * best): line + excess is line x ratio, never below zero.  Signed, as
 * measured: one run each.  NAN when the profile records none at x. */
double sibyl_profile_first_call_at(const struct sibyl_profile *p, double x);
/* Whether that excess is in the points' time base (first_calls.base),
 * so that a prediction scales it by the typical factor as it scales the
 * points.  Profiles written before 2026-11-28 stored a guided plan's
 * first calls beside the profile's time, so their excess already held
 * the machine's typical slowdown: false. */
bool sibyl_profile_first_calls_in_points_base(const struct sibyl_profile *p);

/* Index of the piece holding x, or -1. */
long sibyl_profile_piece_at(const struct sibyl_profile *p, double x);

/* An implementation as it runs now, which a stored profile must stand
 * for to be used in its place. */
struct sibyl_profile_want {
	const char *name;           /* the profile's name */
	const char *work_metric;    /* a changed cost model changes what a metric means */
	unsigned threads;
	const char *platform, *device;  /* NULL: none */
	uint64_t min_metric, max_metric; /* the range it accepts */
};

/* Why p cannot stand for w, or NULL: it must have points, be of w's name
 * and work metric (a profile naming none is taken as w's), planned with
 * the same threads, platform and device, over an integer range within
 * w's, and record a plausible sample count.  The reason may be why. */
const char *sibyl_profile_unfit(const struct sibyl_profile *p, const struct sibyl_profile_want *w,
				char *why, size_t len);

/* Write as JSON through a temporary file (refuses an existing file unless
 * force).  Returns 0, or -1 with a one-line reason in err. */
int sibyl_profile_save(const struct sibyl_profile *p, const char *path, bool force,
		       char *err, size_t errlen);
/* Read and validate; NULL with a one-line reason in err. */
struct sibyl_profile *sibyl_profile_load(const char *path, char *err, size_t errlen);
/* The JSON object (new reference) and its parser, used by the two above. */
struct json_t *sibyl_profile_to_json(const struct sibyl_profile *p);
struct sibyl_profile *sibyl_profile_from_json(struct json_t *j, char *err, size_t errlen);

#endif
