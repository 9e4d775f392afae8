/* Inner product on the OpenCL device: work metric = length of both
 * float vectors.  The descriptor only; the device code is in
 * inner_product_ocl_device.c (opencl.h says why), and until a program
 * enables it init says where the adapter runs. */
#include "planner/adapters/adapters.h"
#include "planner/adapters/opencl.h"
#include "core/log.h"

static const struct adapter_device_impl *impl;

void adapter_inner_product_ocl_provide(const struct adapter_device_impl *i)
{
	impl = i;
}

static int init(void **state, const struct sibyl_adapter_config *config, char *errbuf,
		size_t errlen)
{
	if (!impl)
		return sibyl_seterr(errbuf, errlen, "an OpenCL adapter runs in sibyl-plan-worker "
				    "only (sibyl_adapters_opencl_enable)");
	return impl->init(state, config, errbuf, errlen);
}

static void fini(void *state)
{
	impl->fini(state);
}

static int setup(void *state, uint64_t metric, void **sample)
{
	return impl->setup(state, metric, sample);
}

static double run(void *state, void *sample, uint64_t metric)
{
	return impl->run(state, sample, metric);
}

static void teardown(void *state, void *sample)
{
	impl->teardown(state, sample);
}

static int verify(void *state, void *sample, uint64_t metric)
{
	return impl->verify(state, sample, metric);
}

static size_t params_of(void *sample, double *params)
{
	return impl->params_of(sample, params);
}

const struct sibyl_adapter adapter_inner_product_ocl = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "inner-product-ocl",
	.description = "inner product on the OpenCL device, host<->device copies timed",
	.work_metric = "elements of each vector",
	.min_metric = 1,
	.max_metric = 10000000,
	.flags = SIBYL_ADAPTER_OPENCL,
	.init = init,
	.fini = fini,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "n",
	.metric_of = adapter_count_metric_of,
};

const struct adapter_internal adapter_inner_product_ocl_internal = {
	.adapter = &adapter_inner_product_ocl,
	.verify = verify,
	.params_of = params_of,
};
