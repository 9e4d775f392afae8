/* The run configuration handed from sibyl to sibyl-kernel-run as JSON. */
#include "ocl/driver/run.h"
#include "ocl/driver/args.h"
#include "ocl/driver/argspec.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

json_t *sibyl_run_cfg_to_json(const struct sibyl_run_cfg *c)
{
	json_t *j = json_pack("{s:o, s:s?, s:s?, s:s, s:s?, s:s?, s:b, s:I, s:I, s:I, s:I, s:I, s:I}",
		"kernel", sibyl_kernel_to_json(c->kernel), "platform", c->platform,
		"device", c->device, "file", c->file, "build_options", c->build_options,
		"user_options", c->user_options, "dump_args", c->dump_args,
		"gsize", (json_int_t)c->gsize, "lsize", (json_int_t)c->lsize,
		"elements", (json_int_t)c->elements, "seed", (json_int_t)c->seed,
		"first_sample", (json_int_t)c->first_sample, "samples", (json_int_t)c->samples);

	json_object_set_new(j, "warmup", json_integer(c->warmup));
	json_object_set_new(j, "gsize_to", json_integer((json_int_t)c->gsize_to));
	json_object_set_new(j, "gsize_step", json_integer((json_int_t)c->gsize_step));
	json_object_set_new(j, "fence", json_boolean(c->fence));
	json_object_set_new(j, "check", json_boolean(c->check));
	json_object_set_new(j, "verbose", json_boolean(c->verbose));
	if (c->specs)
		json_object_set_new(j, "args", sibyl_argspecs_json(c->specs, c->kernel->nargs));
	if (c->dims > 1)
		json_object_set_new(j, "shape", json_pack("{s:i, s:[I, I, I], s:[I, I, I]}", "dims",
			(int)c->dims, "global", (json_int_t)c->gdim[0], (json_int_t)c->gdim[1],
			(json_int_t)c->gdim[2], "local", (json_int_t)c->ldim[0],
			(json_int_t)c->ldim[1], (json_int_t)c->ldim[2]));

	if (c->spir_path)
		json_object_set_new(j, "spir", json_string(c->spir_path));
	if (c->spir_plain)
		json_object_set_new(j, "spir_plain", json_true());
	if (c->probe)
		json_object_set_new(j, "probe", json_true());
	if (c->counted_source)
		json_object_set_new(j, "counted_source", json_string(c->counted_source));
	if (sibyl_run_cfg_counts(c)) {
		json_t *sizes = json_array();

		for (size_t i = 0; i < sibyl_run_cfg_sizes(c); i++)
			json_array_append_new(sizes, json_integer((json_int_t)c->counters_sizes[i]));
		json_object_update_new(j, json_pack("{s:i, s:o, s:s}", "counter_arg", (int)c->counter_arg, "counters_sizes", sizes,
			"counters_path", c->counters_path));
	}
	return j;
}

static uint64_t u64(json_t *j, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(j, key));
}

size_t sibyl_run_cfg_sizes(const struct sibyl_run_cfg *c)
{
	if (!c->gsize_step || c->gsize_to <= c->gsize)
		return 1;
	return (size_t)((c->gsize_to - c->gsize) / c->gsize_step) + 1;
}

int sibyl_run_cfg_from_json(json_t *j, struct sibyl_run_cfg *c, struct sibyl_kernel *k)
{
	memset(c, 0, sizeof(*c));
	if (sibyl_kernel_from_json(json_object_get(j, "kernel"), k) < 0)
		return -1;
	c->kernel = k;
	c->platform = json_string_value(json_object_get(j, "platform"));
	c->device = json_string_value(json_object_get(j, "device"));
	c->file = json_string_value(json_object_get(j, "file"));
	c->build_options = json_string_value(json_object_get(j, "build_options"));
	c->user_options = json_string_value(json_object_get(j, "user_options"));
	c->spir_path = json_string_value(json_object_get(j, "spir"));
	c->spir_plain = json_is_true(json_object_get(j, "spir_plain"));
	c->counted_source = json_string_value(json_object_get(j, "counted_source"));
	c->probe = json_is_true(json_object_get(j, "probe"));
	c->counter_arg = (unsigned)u64(j, "counter_arg");
	json_t *sizes = json_object_get(j, "counters_sizes"), *e;
	size_t i;

	c->counters_sizes = sibyl_xcalloc(json_array_size(sizes) + 1, sizeof(*c->counters_sizes));
	json_array_foreach(sizes, i, e)
		c->counters_sizes[i] = (size_t)json_integer_value(e);
	c->counters_path = json_string_value(json_object_get(j, "counters_path"));
	c->dump_args = json_is_true(json_object_get(j, "dump_args"));
	c->gsize = u64(j, "gsize");
	c->lsize = u64(j, "lsize");
	c->elements = u64(j, "elements");
	c->seed = u64(j, "seed");
	c->first_sample = (long)u64(j, "first_sample");
	c->samples = (long)u64(j, "samples");
	c->warmup = (long)u64(j, "warmup");
	c->gsize_to = u64(j, "gsize_to");
	c->gsize_step = u64(j, "gsize_step");
	c->fence = json_is_true(json_object_get(j, "fence"));
	c->check = json_is_true(json_object_get(j, "check"));
	c->verbose = json_is_true(json_object_get(j, "verbose"));
	json_t *shape = json_object_get(j, "shape"), *specs = json_object_get(j, "args");

	if (specs)	/* the runner's: freed when it exits */
		c->specs = sibyl_argspecs_from_json(specs, k->nargs);

	c->dims = shape ? (unsigned)json_integer_value(json_object_get(shape, "dims")) : 1;
	for (size_t d = 0; shape && d < 3; d++) {
		c->gdim[d] = (uint64_t)json_integer_value(json_array_get(json_object_get(shape, "global"), d));
		c->ldim[d] = (uint64_t)json_integer_value(json_array_get(json_object_get(shape, "local"), d));
	}
	return c->file ? 0 : -1;
}

void sibyl_run_cfg_args(const struct sibyl_run_cfg *cfg, uint64_t seed, uint64_t local_elements,
			struct sibyl_args_cfg *out)
{
	*out = (struct sibyl_args_cfg){ cfg->gsize, cfg->elements, seed, local_elements,
					cfg->specs, { cfg->gsize, 1, 1 } };
	if (cfg->dims > 1)
		memcpy(out->gdim, cfg->gdim, sizeof(out->gdim));
}
