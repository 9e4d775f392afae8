/* counters: perf_event software counter deltas after each call record. */
#include "wrapgen/gen.h"
#include "core/alloc.h"
#include "core/log.h"

#include <sibyl/trace_format.h>
#include <stdlib.h>
#include <string.h>

static const char *const event_names[SIBYL_CNT_MAX] = {
	[SIBYL_CNT_TASK_CLOCK_NS] = "task-clock",
	[SIBYL_CNT_PAGE_FAULTS] = "page-faults",
	[SIBYL_CNT_CONTEXT_SWITCHES] = "context-switches",
	[SIBYL_CNT_CPU_MIGRATIONS] = "cpu-migrations",
	[SIBYL_CNT_CYCLES] = "cycles",
	[SIBYL_CNT_INSTRUCTIONS] = "instructions",
};

static int event_bit(const char *name, size_t len)
{
	for (int i = 0; i < SIBYL_CNT_MAX; i++)
		if (strlen(event_names[i]) == len && !strncmp(event_names[i], name, len))
			return i;
	return -1;
}

/* "task-clock+page-faults" -> bit mask; "all" or absent -> every counter. */
static int setup(struct wg_inst *inst, const struct wg_unit *u, char *err, size_t errlen)
{
	const char *ev = wg_param(inst, "events");
	unsigned *mask = sibyl_xmalloc(sizeof(*mask));

	(void)u;
	*mask = 0;
	inst->data = mask;
	if (!ev || !strcmp(ev, "all")) {
		*mask = (1u << SIBYL_CNT_MAX) - 1;
		return 0;
	}
	for (const char *p = ev; *p;) {
		size_t n = strcspn(p, "+");
		int bit = event_bit(p, n);

		if (bit < 0)
			return sibyl_seterr(err, errlen, "wrap: counters: unknown event '%.*s' "
					    "(known: task-clock, page-faults, context-switches, "
					    "cpu-migrations, cycles, instructions)", (int)n, p);
		*mask |= 1u << bit;
		p += n + (p[n] == '+');
	}
	return 0;
}

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	(void)u;
	(void)fns;
	(void)nfns;
	/* Weak: a runtime without event selection still records them all. */
	sibyl_strbuf_printf(&out[WG_FOOTER],
			    "extern void sibyl_rt_counters_select(unsigned mask) __attribute__((weak));\n"
			    "__attribute__((constructor)) static void sibyl_counters_init(void)\n{\n"
			    "\tif (sibyl_rt_counters_select)\n\t\tsibyl_rt_counters_select(0x%xu);\n}\n",
			    *(unsigned *)inst->data);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	sibyl_strbuf_puts(&out[WG_LOCALS], "\tuint64_t sibyl_cnt[SIBYL_CNT_MAX];\n\tint sibyl_cnt_ok;\n");
	sibyl_strbuf_puts(&out[WG_PREFIX],
			  "\tsibyl_cnt_ok = sibyl_rt_counters_read(sibyl_t, sibyl_cnt) != 0;\n");
	/* In the return place: the counters record must follow the call
	 * record, which trace emits in its postfix. */
	sibyl_strbuf_printf(&out[WG_RETURN],
			    "\tif (sibyl_cnt_ok)\n"
			    "\t\tsibyl_rt_counters_emit(sibyl_t, %s, sibyl_t0, sibyl_cnt);\n",
			    fn->fid);
}

static void cleanup(struct wg_inst *inst)
{
	free(inst->data);
	inst->data = NULL;
}

static const char *const keys[] = { "events", NULL };

const struct wg_generator wg_gen_counters = {
	.name = "counters",
	.requires = "trace",
	.before = "time",
	.help = "software counter deltas per call (events=task-clock+page-faults+...)",
	.keys = keys,
	.setup = setup,
	.unit = unit,
	.function = function,
	.cleanup = cleanup,
};
