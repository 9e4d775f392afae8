/*
 * Lowest envelopes (section IV): overlay the profiles of several
 * implementations and keep, at every work metric, the fastest one.  The
 * result is itself a profile; its pieces name the winner of each range.
 */
#ifndef SIBYL_PLANNER_ENVELOPE_H
#define SIBYL_PLANNER_ENVELOPE_H

#include "model/profile.h"

#include <stdbool.h>
#include <stdio.h>

/* NULL with a reason when the profiles' ranges leave a gap. */
struct sibyl_profile *sibyl_envelope(const struct sibyl_profile *const *in, size_t n,
				     char *err, size_t errlen);
/* The envelope of the profile files paths[0..n), saved to output (never
 * replacing an existing file without force).  NULL with a one-line
 * reason: a profile that cannot be read, a gap, an output not written. */
struct sibyl_profile *sibyl_envelope_files(const char *const *paths, size_t n,
					   const char *output, bool force, char *err,
					   size_t errlen);
/* The winners as a table, or a JSON array with --json. */
void sibyl_envelope_print(FILE *f, const struct sibyl_profile *env, bool json);

#endif
