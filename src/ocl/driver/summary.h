/*
 * What a run's samples add up to: mean/median/stdev of each time (-t)
 * and the mean instruction counts over the samples (-i; the thesis' CLI
 * averages, its Python API keeps every sample — --json does both).
 */
#ifndef SIBYL_OCL_SUMMARY_H
#define SIBYL_OCL_SUMMARY_H

#include "ocl/instrument/instrument.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* {"host_ns": {"mean", "median", "stdev"}, "device_ns": ...} over the
 * "sample" messages in `samples`. */
json_t *sibyl_times_summary(json_t *samples);
void sibyl_times_print(FILE *out, const char *kernel, size_t n, json_t *summary);

/* Mean counts (rounded) of the samples' "instcounts"; names merged. */
void sibyl_instcounts_mean(json_t *samples, struct sibyl_instcounts *out);
/* The listing as an array of records, in its order (docs/kernel.md):
 * {"op": "load", "space": "global", "count": N, "bytes": B} for loads
 * and stores, {"op": "call", "callee": "F", "count": N} for calls (no
 * callee once coarsened), {"op": "br", "count": N} for the rest. */
json_t *sibyl_instcounts_json(const struct sibyl_instcounts *c);

/* A "sample" message as it is reported: without "event", its
 * instcounts as records (coarsened if asked). */
json_t *sibyl_sample_json(json_t *msg, bool coarse);

#endif
