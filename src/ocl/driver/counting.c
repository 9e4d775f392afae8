/* Temporary files of a SPIR run (-i, --spir). */
#include "ocl/driver/counting.h"
#include "core/cleanup.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <stdlib.h>
#include <string.h>

static int make_dir(struct sibyl_counting *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!(c->dir = sibyl_private_tmpdir("sibyl-kernel")))
		return sibyl_seterr_errno(err, errlen, "kernel: temporary directory");
	sibyl_cleanup_dir(c->dir, true);
	return 0;
}

int sibyl_counting_plain(struct sibyl_counting *c, const void *bc, size_t size,
			 struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	if (make_dir(c, err, errlen) < 0)
		return -1;
	c->spir = sibyl_path_join(c->dir, "plain.bc");
	if (sibyl_output_write(c->spir, bc, size, 0666) < 0)
		return sibyl_seterr_errno(err, errlen, "kernel: %s", c->spir);
	cfg->spir_path = c->spir;
	cfg->spir_plain = true;
	return 0;
}

/* Counters in rows of their own, one per work-item, when every global
 * size of the run keeps them within this: a row is stored with plain
 * stores, where the shared row takes one atomic per counter and
 * work-item, which made kernels of a few microseconds 3-5 times slower
 * instrumented (docs/instcounts.md). */
#define ROWS_MAX_BYTES ((size_t)32 << 20)

int sibyl_counting_prepare(struct sibyl_counting *c, const void *bc, size_t size,
			   struct sibyl_run_cfg *cfg, char *err, size_t errlen)
{
	struct sibyl_instrument_options rows = {
		.max_items = cfg->gsize_to > cfg->gsize ? cfg->gsize_to : cfg->gsize,
		.rows_max_bytes = ROWS_MAX_BYTES,
	};

	if (make_dir(c, err, errlen) < 0)
		return -1;
	if (sibyl_instrument_kernel_ex(bc, size, cfg->kernel->name, &rows, &c->inst, err,
				       errlen) < 0)
		return -1;
	c->spir = sibyl_path_join(c->dir, "instrumented.bc");
	c->counters = sibyl_path_join(c->dir, "counters");
	if (sibyl_output_write(c->spir, c->inst.bitcode, c->inst.size, 0666) < 0)
		return sibyl_seterr_errno(err, errlen, "kernel: %s", c->spir);
	cfg->inst = &c->inst;
	cfg->spir_path = c->spir;
	cfg->counter_arg = c->inst.counter_arg;
	cfg->counters_path = c->counters;
	return 0;
}

void sibyl_counting_done(struct sibyl_counting *c)
{
	if (c->inst.bitcode)
		sibyl_instrumented_free(&c->inst);
	if (c->dir)
		sibyl_cleanup_remove_dir(c->dir);
	free(c->dir);
	free(c->spir);
	free(c->counters);
}
