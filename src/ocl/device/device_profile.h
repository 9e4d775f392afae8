/*
 * The device profile: what `sibyl device` measures about one OpenCL
 * device (latencies, a bandwidth curve per transfer direction, a fitted
 * transfer model), and the versioned JSON file that carries it to
 * `sibyl predict` (format in docs/device.md).
 *
 * The struct holds no pointers, so a loaded profile needs no freeing.
 */
#ifndef SIBYL_OCL_DEVICE_PROFILE_H
#define SIBYL_OCL_DEVICE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIBYL_DEVICE_PROFILE_FORMAT "sibyl-device-profile"
#define SIBYL_DEVICE_PROFILE_VERSION 1
/* The largest device profile read (one is a few KiB). */
#define SIBYL_DEVICE_PROFILE_MAX_BYTES ((size_t)1 << 20)

/* 64 B .. 1 GiB in x4 steps is 13 points; room for larger caps. */
#define SIBYL_BW_MAX_POINTS 24
#define SIBYL_BW_MIN_BYTES 64ull
#define SIBYL_PROFILE_STR 256

enum sibyl_transfer_dir {
	SIBYL_H2D,	/* host -> device (clEnqueueWriteBuffer) */
	SIBYL_D2H,	/* device -> host (clEnqueueReadBuffer) */
	SIBYL_D2D,	/* device -> device (clEnqueueCopyBuffer) */
	SIBYL_H2D_MAP,	/* host -> device through a mapped CL_MEM_ALLOC_HOST_PTR buffer */
	SIBYL_D2H_MAP,	/* device -> host, likewise */
	SIBYL_DIR_COUNT
};

/* "h2d", "d2h", "d2d", "h2d_map", "d2h_map" (the JSON keys). */
const char *sibyl_transfer_dir_name(enum sibyl_transfer_dir dir);

/* Summary of repeated measurements, in seconds. n == 0: not measured. */
struct sibyl_stat {
	double median, min, stdev;
	unsigned n;
};

/* One measured quantity seen from the host clock and from OpenCL events. */
struct sibyl_timing {
	struct sibyl_stat host;		/* TSC around enqueue + wait */
	struct sibyl_stat device;	/* event profiling (see docs/device.md) */
};

struct sibyl_bw_point {
	uint64_t bytes;
	struct sibyl_timing t;
	double gbps;			/* bytes / host median / 1e9 */
};

struct sibyl_bw_curve {
	struct sibyl_bw_point points[SIBYL_BW_MAX_POINTS];
	size_t count;
};

/* seconds(bytes) = latency_s + bytes / bytes_per_s (docs/device.md). */
struct sibyl_transfer_model {
	double latency_s;
	double bytes_per_s;
	double max_rel_error;	/* worst |model - measured| / measured */
	unsigned points;	/* 0: no model (no points measured) */
};

struct sibyl_device_profile {
	/* provenance */
	char platform[SIBYL_PROFILE_STR];
	char platform_version[SIBYL_PROFILE_STR];
	char device[SIBYL_PROFILE_STR];
	char device_version[SIBYL_PROFILE_STR];
	char driver_version[SIBYL_PROFILE_STR];
	char host[SIBYL_PROFILE_STR];
	char date[SIBYL_PROFILE_STR];		/* ISO 8601 UTC */
	char sibyl_version[SIBYL_PROFILE_STR];
	unsigned repeat;
	uint64_t max_bytes;
	bool quick;
	/* device limits that decided which sizes were measured */
	uint64_t max_alloc_bytes;
	uint64_t global_mem_bytes;
	/* latencies */
	struct sibyl_timing command;			/* marker round trip */
	struct sibyl_timing transfer[SIBYL_DIR_COUNT];	/* 1-byte transfer */
	struct sibyl_timing launch;			/* empty kernel */
	struct sibyl_stat launch_exec;			/* empty kernel END-START */
	struct sibyl_stat with_profiling;		/* host time, same work */
	struct sibyl_stat without_profiling;
	double profiling_overhead_s;
	double profiling_overhead_pct;
	/* bandwidth */
	struct sibyl_bw_curve curve[SIBYL_DIR_COUNT];
	uint64_t skipped_from;		/* first size not measured, 0 if none */
	char skipped_reason[SIBYL_PROFILE_STR];
	struct sibyl_transfer_model model[SIBYL_DIR_COUNT];
};

/*
 * Load a profile file.  Returns 0, or -1 with one line "PATH: <why>" in
 * err (unreadable, not JSON, other format, unknown version, missing or
 * mistyped field).
 */
int sibyl_device_profile_load(const char *path, struct sibyl_device_profile *p, char *err,
			      size_t errlen);
/* The same on text in memory; the reason goes to err (no printing). */
int sibyl_device_profile_parse(const char *text, size_t len,
			       struct sibyl_device_profile *p, char *err, size_t errlen);

/* The JSON text of a profile (malloc'd, NUL-terminated), NULL on failure. */
char *sibyl_device_profile_dump(const struct sibyl_device_profile *p);
/* Write it atomically (temp file + rename); 0, or -1 with the error line
 * in err. */
int sibyl_device_profile_save(const char *path, const struct sibyl_device_profile *p,
			      char *err, size_t errlen);

/*
 * Predicted seconds to move `bytes` in direction `dir`, from the fitted
 * model: latency + bytes / bandwidth.  0 for 0 bytes; a negative value
 * when the profile has no model for that direction.
 */
double sibyl_device_transfer_seconds(const struct sibyl_device_profile *p,
				     enum sibyl_transfer_dir dir, uint64_t bytes);

/*
 * The same from the measured curve instead of the model: linear
 * interpolation between the two measured sizes around `bytes`; the
 * smallest size's time below the curve, and the largest size's time
 * scaled by bytes above it.  Falls back to the model without a curve.
 */
double sibyl_device_transfer_seconds_measured(const struct sibyl_device_profile *p,
					      enum sibyl_transfer_dir dir, uint64_t bytes);

/* Fit p->model[*] from p->curve[*] (docs/device.md, "Transfer model"). */
void sibyl_device_profile_fit(struct sibyl_device_profile *p);
/* The fit on raw arrays: host seconds t[i] for bytes x[i], n >= 1. */
struct sibyl_transfer_model sibyl_transfer_fit(const double *x, const double *t, size_t n);

/* Statistics of n samples (sorted in place): median, min, sample stdev. */
struct sibyl_stat sibyl_stat_of(double *samples, unsigned n);

/* Human table (the text `sibyl device` prints). */
void sibyl_device_profile_print(FILE *out, const struct sibyl_device_profile *p);

#endif
