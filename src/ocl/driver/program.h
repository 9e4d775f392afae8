/*
 * Building the kernel for the device: the portable path
 * (clCreateProgramWithSource + clBuildProgram with the user's options,
 * so any OpenCL platform, Oclgrind included, runs it) and the -i and
 * --spir paths (the instrumented, or plain, SPIR bitcode sibyl
 * wrote, through clCreateProgramWithBinary; the device binary cached,
 * cache.h).
 */
#ifndef SIBYL_OCL_PROGRAM_H
#define SIBYL_OCL_PROGRAM_H

#include "ocl/common/clutil.h"
#include "ocl/driver/run.h"

struct sibyl_program {
	cl_program program;
	cl_kernel kernel;
	const char *cache;		/* "hit", "miss" or NULL */
};

/* Build cfg's program and kernel: 0, or the runner's exit status (1,
 * SIBYL_KRUN_EXIT_BUILD, SIBYL_KRUN_EXIT_UNSUPPORTED) with the error
 * line in err. */
int sibyl_program_build(const struct sibyl_run_cfg *cfg, cl_context ctx, cl_device_id dev,
			struct sibyl_program *out, char *err, size_t errlen);

#endif
