/* --check's barrier probe (check_probe.h). */
#include "ocl/driver/check_probe.h"
#include "ocl/driver/counting.h"
#include "ocl/driver/guard.h"
#include "core/alloc.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_sample(void *ctx, json_t *msg)
{
	json_t **found = ctx;

	if (!*found && json_object_get(msg, "barriers"))
		*found = json_incref(json_object_get(msg, "barriers"));
}

/* Whether the kernel (or what it calls) has a barrier: else no probe. */
static bool has_barrier(const void *bc, size_t size, const char *kernel)
{
	struct sibyl_instcounts c;
	char err[256];
	bool found = true;	/* unknown: the probe finds out */

	if (sibyl_static_counts(bc, size, kernel, &c, err, sizeof(err)) < 0)
		return found;
	found = false;
	for (size_t i = 0; i < c.n; i++)
		found |= !strncmp(c.items[i].name, "call _Z7barrier", 15) ||
			 !strncmp(c.items[i].name, "call _Z18work_group_barrier", 27);
	sibyl_instcounts_free(&c);
	return found;
}

/* Run the probe on bitcode bc: 0, or -1 / the failed samples with err. */
static int probe(struct sibyl_run_cfg *p, const void *bc, size_t size, struct sibyl_guard *g,
		 char *err, size_t errlen)
{
	struct sibyl_counting counting = { 0 };
	int r = sibyl_counting_prepare(&counting, bc, size, p, err, errlen);

	if (r == 0 && (r = sibyl_run_guarded(p, g, err, errlen)) > 0)
		snprintf(err, errlen, "%s", g->failure.message);
	sibyl_counting_done(&counting);
	return r;
}

json_t *sibyl_check_probe(const struct sibyl_run_cfg *cfg, const struct sibyl_compile_opts *c,
			  const void *bc, size_t size, double timeout_s, double build_timeout_s)
{
	struct sibyl_run_cfg p = *cfg;
	struct sibyl_compile_opts dbg = *c;
	json_t *found = NULL;
	struct sibyl_guard g = { timeout_s, build_timeout_s, false, NULL, on_sample, &found,
				 { 0 }, NULL };
	char err[1024];
	void *ctx;

	if (!has_barrier(bc, size, cfg->kernel->name))
		return NULL;
	if (!cfg->lsize)	/* the runtime's groups: which work-items go together? */
		return sibyl_info("kernel: --check: barriers not checked: no -l"), NULL;
	p.samples = 1, p.warmup = 0, p.check = p.dump_args = false, p.barriers = true;
	sibyl_notice_fn *fn = sibyl_notice_handler(&ctx);

	char *opts = sibyl_xasprintf("%s -g", c->build_options ? c->build_options : "");
	void *gbc = NULL;
	size_t gsize = 0;

	sibyl_set_notice_handler(NULL, NULL);
	dbg.build_options = opts;	/* debug locations: the barrier's line */
	if (sibyl_compile_spir(&dbg, &gbc, &gsize, err, sizeof(err)) < 0)
		gbc = NULL;
	int r = probe(&p, gbc ? gbc : bc, gbc ? gsize : size, &g, err, sizeof(err));

	sibyl_set_notice_handler(fn, ctx);
	if (r)
		sibyl_info("kernel: --check: the barrier probe did not run: %s", err);
	free(gbc);
	free(opts);
	free(g.chatter);
	return found;
}
