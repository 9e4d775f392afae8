/* Small OpenCL helpers every OpenCL command shares: choosing a platform
 * and device the same way everywhere, and naming error codes. */
#ifndef SIBYL_OCL_CLUTIL_H
#define SIBYL_OCL_CLUTIL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* "CL_OUT_OF_RESOURCES" for -5; "CL error -N" for unknown codes. */
const char *sibyl_cl_error_name(cl_int err);

/*
 * Pick a device. `platform` and `device` are each NULL (the first one),
 * a decimal index, or a case-insensitive substring of the name. Returns
 * 0, or -1 with one error line in err that lists what exists.
 */
int sibyl_cl_pick_device(const char *platform, const char *device,
			 cl_platform_id *platform_out, cl_device_id *device_out, char *err,
			 size_t errlen);

/* malloc'd CL_PLATFORM_NAME / CL_DEVICE_NAME ("?" when unavailable). */
char *sibyl_cl_platform_name(cl_platform_id platform);
char *sibyl_cl_device_name(cl_device_id device);

#endif
