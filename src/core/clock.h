/*
 * Time sources.  Hot paths read the TSC (~10 ns here); conversions to
 * nanoseconds use a calibration taken against CLOCK_MONOTONIC.
 */
#ifndef SIBYL_CORE_CLOCK_H
#define SIBYL_CORE_CLOCK_H

#include <stdint.h>
#include <x86intrin.h>

static inline uint64_t sibyl_tsc(void)
{
	return __rdtsc();
}

uint64_t sibyl_mono_ns(void);

/* A reference pair (tsc, ns) and the TSC rate between two such pairs. */
struct sibyl_clock_cal {
	uint64_t ref_tsc;
	uint64_t ref_ns;
	double tsc_per_ns;
};

/* Take a reference pair now (the TSC read is bracketed by clock reads). */
void sibyl_clock_pair(uint64_t *tsc, uint64_t *ns);
/* Calibrate from two pairs; measures for at least min_ns if they are closer. */
void sibyl_clock_calibrate(struct sibyl_clock_cal *cal, uint64_t tsc0, uint64_t ns0,
			   uint64_t min_ns);
/* True when the CPU advertises an invariant TSC (constant_tsc + nonstop_tsc). */
int sibyl_tsc_invariant(void);

static inline double sibyl_tsc_to_ns(const struct sibyl_clock_cal *cal, uint64_t tsc)
{
	return (double)cal->ref_ns + ((double)tsc - (double)cal->ref_tsc) / cal->tsc_per_ns;
}

static inline double sibyl_tsc_delta_ns(const struct sibyl_clock_cal *cal, uint64_t d)
{
	return (double)d / cal->tsc_per_ns;
}

/*
 * Seconds from the TSC, calibrated once per process against
 * CLOCK_MONOTONIC (20 ms, on the first call of sibyl_seconds_init): the
 * clock the planner and its adapters time runs with.
 */
void sibyl_seconds_init(void);
double sibyl_seconds(void);
/* The median step between two back-to-back reads of it (seconds): below
 * that, run times cannot be told apart. */
double sibyl_seconds_resolution(void);

#endif
