/*
 * `sibyl device`: measuring one OpenCL device into a device profile
 * (ocl/device_profile.h), and listing the devices there are.
 */
#ifndef SIBYL_OCL_DEVICE_H
#define SIBYL_OCL_DEVICE_H

#include "ocl/device/device_profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sibyl_device_run {
	const char *platform;		/* NULL, index or name substring */
	const char *device;
	unsigned repeat;		/* samples per bandwidth size */
	uint64_t max_bytes;		/* largest transfer tried */
	bool quick;
	bool progress;			/* progress line on stderr */
	const char *sibyl_version;
};

/* Measure into *p (fitted, ready to save).  0, or -1 with the error line
 * in err.  In this process: only for sibyl-device-run (device_spawn.c). */
int sibyl_device_measure(const struct sibyl_device_run *run, struct sibyl_device_profile *p,
			 char *err, size_t errlen);
/* Print every platform and device with its index (JSON: one object);
 * 0, or -1 with the error line in err. */
int sibyl_device_list(FILE *out, bool json, char *err, size_t errlen);

/* The same two through the sibyl-device-run child (core/helper.h): what
 * sibyl uses.  The list goes to the child's stdout, which is ours. */
int sibyl_device_measure_child(const struct sibyl_device_run *run,
			       struct sibyl_device_profile *p, char *err, size_t errlen);
int sibyl_device_list_child(bool json, char *err, size_t errlen);

/* "64", "64K", "64M", "1G" (binary units, optional "B"/"iB"); 0 or -1. */
int sibyl_parse_bytes(const char *s, uint64_t *out);

/* "64 B", "16 KiB", "1 GiB" (exact binary units only). */
const char *sibyl_fmt_bytes(char *buf, size_t len, uint64_t bytes);

#endif
