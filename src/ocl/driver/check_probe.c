/* --check's probes: barriers, then races (check_probe.h). */
#include "ocl/driver/check_probe.h"
#include "ocl/driver/counting.h"
#include "ocl/driver/guard.h"
#include "core/alloc.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the probes are built from: the caller's, its bitcode and compile
 * options with -g when that compiled (the findings' lines); `source`:
 * the barrier probe counts through the marked source (counting.h). */
struct probe_src {
	struct sibyl_check_how how;
	bool source;
};

struct seen {
	json_t *found;		/* the findings */
	json_t *race_log;	/* {"groups", "cut"} */
};

static void on_sample(void *ctx, json_t *msg)
{
	struct seen *s = ctx;
	json_t *f;

	if (!s->race_log && (f = json_object_get(msg, "race_log")))
		s->race_log = json_incref(f);
	if (s->found)
		return;
	if ((f = json_object_get(msg, "barriers")))
		s->found = json_pack("[O]", f);
	else if ((f = json_object_get(msg, "races")) && json_array_size(f))
		s->found = json_incref(f);
}

static bool barrier_call(const char *name)
{
	return !strncmp(name, "call _Z7barrier", 15) ||
	       !strncmp(name, "call _Z18work_group_barrier", 27);
}

/* A __local or __global load or store, or a builtin given such a
 * pointer (its mangled name says so); atomicrmw and cmpxchg do not name
 * theirs. */
static bool shared_access(const char *name)
{
	return !strncmp(name, "load local", 10) || !strncmp(name, "store local", 11) ||
	       !strncmp(name, "load global", 11) || !strncmp(name, "store global", 12) ||
	       (!strncmp(name, "call ", 5) && (strstr(name, "PU3AS3") || strstr(name, "PU3AS1"))) ||
	       !strncmp(name, "atomicrmw", 9) || !strncmp(name, "cmpxchg", 7);
}

/* Whether the kernel (or what it calls) has an instruction `match`
 * names: else no probe. */
static bool has(const void *bc, size_t size, const char *kernel, bool (*match)(const char *))
{
	struct sibyl_instcounts c;
	char err[256];
	bool found = true;	/* unknown: the probe finds out */

	if (sibyl_static_counts(bc, size, kernel, &c, err, sizeof(err)) < 0)
		return found;
	found = false;
	for (size_t i = 0; i < c.n; i++)
		found |= match(c.items[i].name);
	sibyl_instcounts_free(&c);
	return found;
}

static long long logged(const struct seen *s, const char *what)
{
	return (long long)json_integer_value(json_object_get(s->race_log, what));
}

/* What the race probe's log left unchecked, said whatever -v says (a
 * finding may hide there): "" when nothing. */
static void cut_note(const struct seen *s, char *cut, size_t len)
{
	int n = 0;

	if (logged(s, "cut"))
		n = snprintf(cut, len, "the race probe's log was cut short in %lld of %lld "
			     "work-group(s): what they did after their share of it is not checked",
			     logged(s, "cut"), logged(s, "groups"));
	if (logged(s, "unscanned") && n >= 0 && (size_t)n < len)
		snprintf(cut + n, len - (size_t)n, "%s%lld __global accesses past what the race "
			 "analysis holds are not checked", n ? "; " : "the race probe's ",
			 logged(s, "unscanned"));
}

/* Run a probe of src: its findings (an array) or NULL; in `why`
 * "did not run: <why>", or what the race probe saw (else empty); in
 * `cut` what its log left out (else empty). */
static json_t *probe(struct sibyl_run_cfg *p, const struct probe_src *src, char *why,
		     size_t whylen, char *cut, size_t cutlen)
{
	struct seen seen = { NULL, NULL };
	struct sibyl_guard g = { src->how.timeout_s, src->how.build_timeout_s, false, NULL,
				 on_sample, &seen, { 0 }, NULL };
	struct sibyl_counting counting = { 0 };
	char err[512];
	int r = src->source ? sibyl_counting_source(&counting, src->how.c, src->how.ks,
						    src->how.bc, src->how.size, p, err, sizeof(err))
			    : sibyl_counting_prepare(&counting, src->how.bc, src->how.size, p, err,
						     sizeof(err));

	if (r == 0 && (r = sibyl_run_guarded(p, &g, err, sizeof(err))) > 0)
		snprintf(err, sizeof(err), "%s", g.failure.message);
	snprintf(why, whylen, "%s%s", r ? "did not run: " : "", r ? err : "");
	sibyl_counting_done(&counting);
	free(g.chatter);
	if (seen.race_log) {	/* -v: how much the race probe saw */
		snprintf(why, whylen, "logged the __local and __global accesses of %lld "
			 "work-group(s), %lld of them cut short", logged(&seen, "groups"),
			 logged(&seen, "cut"));
		cut_note(&seen, cut, cutlen);
	}
	json_decref(seen.race_log);
	return seen.found;
}

/* The kernel compiled again with -g, for the findings' lines, into
 * src and dbg (which keeps *opts); else the caller's bitcode serves. */
static void with_lines(struct probe_src *src, struct sibyl_compile_opts *dbg, char **opts)
{
	const struct sibyl_compile_opts *c = src->how.c;
	void *gbc = NULL;
	size_t size = 0;
	char err[1024];

	*dbg = *c;
	*opts = sibyl_xasprintf("%s -g", c->build_options ? c->build_options : "");
	dbg->build_options = *opts;
	if (sibyl_compile_spir(dbg, &gbc, &size, err, sizeof(err)) == 0) {
		src->how.bc = gbc;
		src->how.size = size;
		src->how.c = dbg;
	}
}

/* Whether the barrier probe goes through the source: asked, or the
 * device takes no SPIR (its answer unknown: SPIR, as before). */
static bool through_source(const struct sibyl_run_cfg *p, const struct sibyl_check_how *how)
{
	bool spir = true;
	char err[512];

	if (how->source)
		return true;
	if (sibyl_device_takes_spir(p, how->build_timeout_s, &spir, err, sizeof(err)) < 0)
		return false;
	return !spir;
}

/* Whether a branch to a barrier reads memory other work-items write
 * (instrument.h): the barrier probe, each work-item alone, would see
 * them take ways they do not take together; in `why` what it skips. */
static bool data_branch(const void *bc, size_t size, const char *kernel, char why[600])
{
	unsigned line;
	char err[256], at[32] = "";

	if (sibyl_barrier_data_branch(bc, size, kernel, &line, err, sizeof(err)) <= 0)
		return false;
	if (line > 1)
		snprintf(at, sizeof(at), " at line %u", line);
	snprintf(why, 600, "did not run: the branch%s decides how often a barrier is reached "
		 "from __local or __global memory, which work-items run one by one (the probe's "
		 "way) would not share", at);
	return true;
}

/* Both probes, their notices dropped (the user's run says what fails). */
static json_t *probes(struct sibyl_run_cfg *p, struct probe_src *src, bool barriers,
		      bool shared, char why[3][600])
{
	json_t *found = NULL;
	struct sibyl_compile_opts dbg;
	const void *bc = src->how.bc;	/* the caller's: with_lines may replace it */
	char *opts;
	void *ctx;
	sibyl_notice_fn *fn = sibyl_notice_handler(&ctx);

	sibyl_set_notice_handler(NULL, NULL);
	with_lines(src, &dbg, &opts);
	src->source = (barriers || shared) && through_source(p, &src->how);
	if (barriers && data_branch(src->how.bc, src->how.size, p->kernel->name, why[0]))
		barriers = false;
	if (barriers) {
		p->barriers = true;
		found = probe(p, src, why[0], 600, why[2], 600);
		p->barriers = false;
	}
	/* A divergent barrier leaves the race probe nothing sound to see;
	 * its log is instrumented IR only. */
	if (!found && shared && src->source)
		snprintf(why[1], 600, "did not run: its log needs SPIR (cl_khr_spir)%s",
			 src->how.source ? " and --source-counters counts through the source" :
			 ", which the device does not take");
	else if (!found && shared) {
		p->races = true;
		found = probe(p, src, why[1], 600, why[2], 600);
	}
	sibyl_set_notice_handler(fn, ctx);
	if (src->how.bc != bc)
		free((void *)src->how.bc);
	free(opts);
	return found;
}

json_t *sibyl_check_probe(const struct sibyl_run_cfg *cfg, const struct sibyl_check_how *how)
{
	struct sibyl_run_cfg p = *cfg;
	struct probe_src src = { *how, false };
	bool barriers = has(how->bc, how->size, cfg->kernel->name, barrier_call);
	bool shared = has(how->bc, how->size, cfg->kernel->name, shared_access);
	char why[3][600] = { "", "", "" };

	if (barriers && !cfg->lsize) {	/* the runtime's groups: which work-items go together? */
		sibyl_info("kernel: --check: barriers not checked: no -l");
		barriers = false;
	}
	if (!barriers && !shared)
		return NULL;
	p.samples = 1, p.warmup = 0, p.check = p.dump_args = false;
	json_t *found = probes(&p, &src, barriers, shared, why);

	if (src.source && barriers && !*why[0])
		sibyl_info("kernel: --check: the barrier probe counted through the marked source");
	for (int k = 0; k < 2; k++)
		if (*why[k])
			sibyl_info("kernel: --check: the %s probe %s", k ? "race" : "barrier", why[k]);
	if (*why[2])
		sibyl_notice(SIBYL_NOTICE_NOTE, "kernel: --check: %s", why[2]);
	return found;
}
