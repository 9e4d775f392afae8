/* A failed run as --json reports it (guard.h). */
#include "ocl/driver/guard.h"
#include "ocl/driver/args.h"

json_t *sibyl_kfailure_args(const struct sibyl_run_cfg *cfg, const struct sibyl_kfailure *f)
{
	struct sibyl_run_cfg one;
	struct sibyl_args_cfg acfg;
	struct sibyl_args a;
	json_t *j;

	if (!cfg || !f || !f->sampled)
		return NULL;
	/* Arguments follow from the seed and the sizes alone: generated
	 * again here, they are the ones the dead runner had. */
	one = *cfg;
	one.gsize = f->gsize;
	sibyl_run_cfg_args(&one, f->seed, f->local_elements, &acfg);
	if (sibyl_args_generate(cfg->kernel, &acfg, &a, NULL, 0) < 0)
		return NULL;
	j = sibyl_args_json(cfg->kernel, &a);
	sibyl_args_free(&a);
	return j;
}

json_t *sibyl_kfailure_json(const char *file, const char *kernel,
			    const struct sibyl_run_cfg *cfg, const struct sibyl_kfailure *f,
			    enum sibyl_kstatus status, const char *stage, const char *message)
{
	json_t *j = json_pack("{s:s, s:s?, s:s, s:s, s:s}", "file", file, "kernel", kernel,
			      "status", sibyl_kstatus_name(status), "stage", stage,
			      "message", message);
	json_t *args = sibyl_kfailure_args(cfg, f);

	if (f && f->signal && (status == SIBYL_KS_CRASH || status == SIBYL_KS_TIMEOUT))
		json_object_set_new(j, "signal", json_integer(f->signal));
	if (cfg)
		json_object_set_new(j, "lsize", json_integer((json_int_t)cfg->lsize));
	if (f && f->sampled) {
		json_object_set_new(j, "seed", json_integer((json_int_t)f->seed));
		json_object_set_new(j, "gsize", json_integer((json_int_t)f->gsize));
	} else if (cfg) {
		json_object_set_new(j, "seed", json_integer((json_int_t)cfg->seed));
		json_object_set_new(j, "gsize", json_integer((json_int_t)cfg->gsize));
	}
	if (args)
		json_object_set_new(j, "args", args);
	return j;
}
