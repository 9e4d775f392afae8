/*
 * The adapter ABI of `sibyl plan` (Wernsing & Stitt 2010, section IV).
 *
 * An adapter maps the planner's one-dimensional *work metric* onto the
 * invocation parameters of one implementation, runs it, and returns how
 * long the implementation itself took. Everything else an adapter does
 * (allocating and filling inputs, creating device contexts, freeing) is
 * kept out of the measured time by splitting it into setup/teardown.
 *
 * Adapters are built into sibyl or loaded from a user shared object that
 * exports
 *
 *     const struct sibyl_adapter *const *sibyl_adapters(size_t *count);
 *
 * returning an array of `*count` adapters that stay valid until the
 * object is unloaded. This header is the whole contract: it needs no
 * sibyl library, so an adapter .so links only against what it measures.
 */
#ifndef SIBYL_ADAPTER_H
#define SIBYL_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#define SIBYL_ADAPTER_ABI_VERSION 1u
#define SIBYL_ADAPTERS_SYMBOL "sibyl_adapters"

/* The implementation runs on several threads: plan one profile per
 * thread count (--threads N is passed in sibyl_adapter_config.threads). */
#define SIBYL_ADAPTER_THREADED (1u << 0)
/* The implementation runs on an OpenCL device (config.device selects it). */
#define SIBYL_ADAPTER_OPENCL (1u << 1)
/* init does only what any program calling the original already did
 * (the library chooses the implementation inside, as OpenSSL chooses
 * AES-NI): a prediction adds the first call's extra time, not init's. */
#define SIBYL_ADAPTER_INIT_SHARED (1u << 2)

/* What the planner hands an adapter once, before any sample. */
struct sibyl_adapter_config {
	unsigned threads;          /* >= 1; only meaningful with ..._THREADED */
	uint64_t seed;             /* for the adapter's own random inputs */
	const char *platform;      /* OpenCL platform/device selection, or NULL */
	const char *device;
	/* The planner's clock (TSC calibrated to seconds): adapters should
	 * time run() with it so every implementation is timed the same way. */
	double (*now)(void);
};

struct sibyl_adapter {
	unsigned abi_version;      /* SIBYL_ADAPTER_ABI_VERSION */
	const char *name;          /* unique, e.g. "quicksort" */
	const char *description;   /* one line: the implementation */
	const char *work_metric;   /* what one unit of work metric is */
	uint64_t min_metric;       /* default range of interest, inclusive */
	uint64_t max_metric;
	unsigned flags;            /* SIBYL_ADAPTER_* */

	/* Once per worker process (may be NULL): allocate state, open
	 * devices.  config and its strings live only during the call: copy
	 * what is needed.  Returns 0, or -1 with a reason in errbuf. */
	int (*init)(void **state, const struct sibyl_adapter_config *config,
		    char *errbuf, size_t errlen);
	void (*fini)(void *state);

	/* Per run (a sample is several runs), untimed: build the inputs for
	 * `metric` into *sample (may be NULL).  0 on success; anything else
	 * fails the sample, and then neither run nor teardown is called. */
	int (*setup)(void *state, uint64_t metric, void **sample);
	/* Per run, timed: run the implementation once on the inputs and
	 * return the elapsed seconds, or a negative value on failure. */
	double (*run)(void *state, void *sample, uint64_t metric);
	/* Per run, after run: free what setup made. */
	void (*teardown)(void *state, void *sample);

	/* The inverse mapping: invocation parameters -> work metric, so a
	 * profile can predict a call it never sampled. `params_doc` names the
	 * parameters in order, e.g. "m,n,p". Returns a negative value when
	 * the parameters are out of the adapter's domain. */
	const char *params_doc;
	double (*metric_of)(const double *params, size_t nparams);
};

/* Signature of the symbol a user adapter object exports. */
typedef const struct sibyl_adapter *const *(*sibyl_adapters_fn)(size_t *count);

#endif
