/*
 * The built-in adapters on an OpenCL device are listed by sibyl but run
 * only in sibyl-plan-worker: sibyl must not link libOpenCL (an OpenCL
 * runtime such as PoCL brings its own LLVM, src/ocl/README.md).  So the
 * descriptor (name, range, flags) is in sibyl-adapters and its device
 * code in sibyl-adapters-ocl, which a program that runs adapters links
 * and enables once before the first init.
 */
#ifndef SIBYL_PLANNER_ADAPTERS_OPENCL_H
#define SIBYL_PLANNER_ADAPTERS_OPENCL_H

#include <sibyl/adapter.h>

#include <stddef.h>
#include <stdint.h>

/* What an OpenCL adapter's descriptor forwards to. */
struct adapter_device_impl {
	int (*init)(void **state, const struct sibyl_adapter_config *config, char *errbuf,
		    size_t errlen);
	void (*fini)(void *state);
	int (*setup)(void *state, uint64_t metric, void **sample);
	double (*run)(void *state, void *sample, uint64_t metric);
	void (*teardown)(void *state, void *sample);
	int (*verify)(void *state, void *sample, uint64_t metric);
	size_t (*params_of)(void *sample, double *params);
};

/* sibyl-adapters-ocl: make the OpenCL adapters runnable in this process. */
void sibyl_adapters_opencl_enable(void);

/* inner_product_ocl.c: where its device code is. */
void adapter_inner_product_ocl_provide(const struct adapter_device_impl *impl);

#endif
