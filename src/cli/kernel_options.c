/* sibyl kernel's options: the table, and the checks of what they ask
 * before anything runs (docs/kernel.md). */
#include "cli/commands.h"
#include "cli/kernel_cli.h"
#include "core/log.h"
#include "core/alloc.h"
#include "ocl/driver/arg_roles.h"
#include "ocl/driver/args.h"
#include "ocl/driver/argspec_infer.h"
#include "ocl/driver/check.h"

#include <limits.h>
#include <string.h>

static const struct sibyl_command_help help = {
	"kernel", "FILE.cl [-k NAME | --all] -g G [-l L] [-n SAMPLES] [-i | --spir] [--time-it] "
	"[--static] [-D ...] [-I ...] [--build-options ...] [--platform P --device D] [--seed N] "
	"[--timeout S] [--json] [-o FILE.jsonl [--force]] [--check]",
	"Run one kernel of an OpenCL C file on a real device with arguments generated from its "
	"signature (signed integers in [-g, g], unsigned in [0, g), floats uniform in [-g, g], buffers of G "
	"elements; scalars the IR shows to be sizes or offsets, and buffers of indices, get "
	"values that keep accesses inside the buffers: -v says which, --no-infer keeps them "
	"random), in a child process that may crash or hang safely.  Without -k, list the "
	"kernels and their arguments.  --time-it times every sample (host, device, queue, submit, "
	"transfer); -i counts the LLVM instructions executed on the device (Oclgrind's "
	"--inst-counts listing); --spir runs the plain kernel from the SPIR bitcode -i instruments "
	"(ignored with -i and --static), for `oclgrind --inst-counts sibyl kernel --spir`; "
	"--static counts the kernel's IR.  -g FROM:TO:STEP sweeps "
	"global sizes, one JSON line per sample (-o).  See docs/kernel.md.",
};

#define MAX_TIMEOUT 86400

static int in_range(const char *name, long v, long lo, long hi)
{
	if (v >= lo && v <= hi)
		return 0;
	return sibyl_err("kernel: --%s: %ld is not in %ld..%ld", name, v, lo, hi);
}

/* Out of range, these ran nothing (a sweep whose sample count wrapped),
 * ran forever or overflowed: refused before anything runs. The runner
 * numbers samples with an int; a sample's seed is --seed + its number. */
static int check_numbers(const struct kernel_opts *o, const struct sibyl_range *r)
{
	uint64_t sizes = (r->to - r->from) / r->step + 1, total;

	if (in_range("samples", o->samples, 1, INT_MAX) || in_range("elements", o->elements, 0, LONG_MAX) ||
	    in_range("warmup", o->warmup, 0, LONG_MAX) ||
	    in_range("seed", o->seed, 0, LONG_MAX - (o->samples - 1)))
		return -1;
	if (o->check && sizes > 1)
		return sibyl_err("kernel: --check runs one global size, not a sweep (-g %s)",
				 o->gsize);
	if (__builtin_mul_overflow(sizes, (uint64_t)o->samples, &total) || total > INT_MAX)
		return sibyl_err("kernel: -g %s -n %ld: more than %d samples in one run", o->gsize,
				 o->samples, INT_MAX);
	/* At most a day: in milliseconds, that stays within poll()'s int. */
	if (!(o->timeout >= 0 && o->timeout <= MAX_TIMEOUT))
		return sibyl_err("kernel: --timeout: %g is not a number of seconds in 0..%d "
				 "(0: no limit)", o->timeout, MAX_TIMEOUT);
	if (!(o->build_timeout >= 0 && o->build_timeout <= MAX_TIMEOUT))
		return sibyl_err("kernel: --build-timeout: %g is not a number of seconds in "
				 "0..%d (0: no limit)", o->build_timeout, MAX_TIMEOUT);
	return 0;
}

/* The sizes the IR shows (argspec_infer.h), and the buffers' lengths
 * their accesses need under the largest sample (range g of r->to
 * work-items), said with -v; a kernel whose IR cannot be read keeps its
 * signature's. */
static void infer_sizes(const struct sibyl_kernel *k, const void *bc, size_t size,
			struct sibyl_argspec *specs, const struct kernel_opts *o,
			const struct sibyl_range *r, const uint64_t g[3], const uint64_t l[3])
{
	struct sibyl_arg_role *roles = sibyl_xcalloc(k->nargs + 1, sizeof(*roles));
	uint64_t elements = (uint64_t)o->elements, length = elements ? elements : r->from;
	char err[1024];
	int rc = sibyl_arg_roles(bc, size, k, roles, err, sizeof(err));

	if (rc == 0) {
		sibyl_argspecs_infer(k, roles, specs);
		rc = sibyl_argspecs_reach(k, bc, size, g, l, elements ? elements : r->to, elements,
					  specs, err, sizeof(err));
	}
	if (rc < 0) {
		sibyl_info("%s (arguments from the signature only)", err);
	} else {
		json_t *a = sibyl_argspecs_inferred_json(k, specs, length), *e;
		size_t i;

		json_array_foreach(a, i, e) {
			json_t *below = json_object_get(e, "below"), *n = json_object_get(e, "elements");
			const char *format = json_string_value(json_object_get(e, "format"));

			if (format) {
				sibyl_info("kernel '%s': '%s' is %s: %s", k->name,
					   json_string_value(json_object_get(e, "name")), format,
					   json_string_value(json_object_get(e, "why")));
				continue;
			}
			sibyl_info("kernel '%s': '%s' %s %lld%s: it %s", k->name,
				   json_string_value(json_object_get(e, "name")),
				   below ? "<" : n ? ">=" : "=",
				   (long long)json_integer_value(below ? below : n ? n
								: json_object_get(e, "value")),
				   n ? " elements" : "", json_string_value(json_object_get(e, "why")));
		}
		json_decref(a);
	}
	sibyl_arg_roles_free(roles, k->nargs);
	free(roles);
}

int kernel_check_launch(const struct kernel_opts *o, const struct sibyl_kernel *k,
			const void *bc, size_t size, struct sibyl_ndrange *nd,
			struct sibyl_range *r, struct sibyl_argspec **specs)
{
	char err[1024] = "";

	if (!o->gsize)
		return sibyl_err("kernel: -g GSIZE is required to run %s (see --help)", k->name);
	if (sibyl_launch_shape(o->gsize, o->lsize, k, nd, r, err, sizeof(err)) < 0 ||
	    sibyl_argspecs_make(k, &o->args, specs, err, sizeof(err)) < 0)
		return sibyl_err("%s", err);
	struct sibyl_args_cfg largest = { r->to, (uint64_t)o->elements, 0, 0, *specs,
					  { nd->dims > 1 ? nd->g[0] : r->to, nd->g[1], nd->g[2] } };

	if (!o->no_infer)
		infer_sizes(k, bc, size, *specs, o, r, largest.gdim, nd->l);

	if (check_numbers(o, r) == 0 && sibyl_args_check(k, &largest, err, sizeof(err)) == 0)
		return 0;
	if (*err)	/* check_numbers said its own line */
		sibyl_err("%s", err);
	sibyl_argspecs_free(*specs, k->nargs);
	*specs = NULL;
	return -1;
}

/* The options into *o, the file operand included: 0, 1 after --help,
 * or -1 after one line on a usage error. */
static int parse_options(int argc, char **argv, struct kernel_opts *o)
{
	struct sibyl_option opts[] = {
		{ "file", 0, SIBYL_OPT_STRING, &o->c.file, "FILE.cl", "the OpenCL C file (or the operand)" },
		{ "kernel", 'k', SIBYL_OPT_STRING, &o->kernel, "NAME", "the kernel to run" },
		{ "all", 0, SIBYL_OPT_FLAG, &o->all, NULL, "run every kernel of the file in turn" },
		{ "gsize", 'g', SIBYL_OPT_STRING, &o->gsize, "G[,G[,G]]|FROM:TO:STEP",
		  "global size (up to 3 dimensions), or a sweep of 1-D sizes" },
		{ "lsize", 'l', SIBYL_OPT_STRING, &o->lsize, "L[,L[,L]]",
		  "local size (default: reqd_work_group_size, else the runtime's)" },
		{ "samples", 'n', SIBYL_OPT_LONG, &o->samples, "N", "runs, each with new arguments (1)" },
		{ "inst-counts", 'i', SIBYL_OPT_FLAG, &o->inst, NULL, "count the LLVM instructions run" },
		{ "source-counters", 0, SIBYL_OPT_FLAG, &o->source_counters, NULL, "no SPIR (-i, --check)" },
		{ "spir", 0, SIBYL_OPT_FLAG, &o->spir, NULL,
		  "run the plain kernel from the SPIR bitcode -i instruments (-O, -D, -I apply)" },
		{ "check", 0, SIBYL_OPT_FLAG, &o->check, NULL, "report missing or suspect output" },
		{ "time-it", 0, SIBYL_OPT_FLAG, &o->timeit, NULL, "time every sample" },
		{ "static", 0, SIBYL_OPT_FLAG, &o->stat, NULL, "static instruction counts of the IR" },
		{ "coarse", 0, SIBYL_OPT_FLAG, &o->coarse, NULL, "-i without bytes or callees" },
		{ "define", 'D', SIBYL_OPT_LIST, &o->c.defines, "NAME[=VAL]", "preprocessor macro" },
		{ "include", 'I', SIBYL_OPT_LIST, &o->c.includes, "DIR", "include directory" },
		{ "build-options", 0, SIBYL_OPT_STRING, &o->c.build_options, "OPTS",
		  "more OpenCL build options" },
		{ "opt-level", 'O', SIBYL_OPT_STRING, &o->c.opt_level, "LEVEL",
		  "clang optimisation level of the SPIR bitcode for -i/--spir/--static (0)" },
		{ "platform", 'p', SIBYL_OPT_STRING, &o->platform, "P", "platform: index or name" },
		{ "device", 'd', SIBYL_OPT_STRING, &o->device, "D", "device: index or name" },
		{ "warmup", 0, SIBYL_OPT_LONG, &o->warmup, "N", "unreported launches first (0)" },
		{ "seed", 0, SIBYL_OPT_LONG, &o->seed, "N", "seed of sample 0; sample i uses N+i (0)" },
		{ "arg", 'A', SIBYL_OPT_LIST, &o->args, "NAME=V", "a scalar's value, a buffer's "
		  "contents: random, zeros, ones, arange, file:PATH" },
		{ "elements", 0, SIBYL_OPT_LONG, &o->elements, "N", "buffer elements (default G)" },
		{ "no-infer", 0, SIBYL_OPT_FLAG, &o->no_infer, NULL, "arguments from the signature only" },
		{ "timeout", 0, SIBYL_OPT_DOUBLE, &o->timeout, "S",
		  "seconds a sample's kernel may run, 0: no limit (60)" },
		{ "build-timeout", 0, SIBYL_OPT_DOUBLE, &o->build_timeout, "S",
		  "seconds the device may take to compile the kernel, 0: no limit (600)" },
		{ "verbose", 'v', SIBYL_OPT_FLAG, &o->verbose, NULL,
		  "show the compilers' warnings and the device compiler's output" },
		{ "fence", 0, SIBYL_OPT_FLAG, &o->fence, NULL,
		  "buffers end at an inaccessible page: out-of-bounds accesses crash at once" },
		{ "json", 0, SIBYL_OPT_FLAG, &o->json, NULL, "print one JSON object" },
		{ "dump-args", 0, SIBYL_OPT_FLAG, &o->dump_args, NULL,
		  "report the generated arguments (and buffers after the run)" },
		{ "output", 'o', SIBYL_OPT_STRING, &o->out, "FILE.jsonl", "JSON lines of every sample" },
		{ "out", 0, SIBYL_OPT_STRING, &o->out, "FILE.jsonl", NULL },
		{ "force", 'f', SIBYL_OPT_FLAG, &o->force, NULL, "replace an existing -o file" },
		SIBYL_OPT_END,
	};
	int operands, first_unused = 1, r = sibyl_cli_options(&help, opts, argc, argv, false,
							      &operands);

	if (r)
		return r;
	if (operands && !o->c.file)
		o->c.file = argv[first_unused++];
	if (operands >= first_unused)
		return sibyl_err("kernel: unexpected operand '%s' (see --help)", argv[first_unused]);
	return 0;
}

static int check_modes(const struct kernel_opts *o)
{
	if (o->source_counters && (!(o->inst || o->check) || o->stat))
		return sibyl_err("kernel: --source-counters goes with -i or --check (see --help)");
	if (o->check && (o->stat || o->out))
		return sibyl_err("kernel: --check runs the kernel and reports on it: not with "
				 "--static or --output");
	/* Marks relate to blocks only as clang lays them out at -O0. */
	if (o->source_counters && o->c.opt_level && strcmp(o->c.opt_level, "0"))
		return sibyl_err("kernel: --source-counters counts the -O0 IR only (no -O %s)",
				 o->c.opt_level);
	return 0;
}

int kernel_parse_options(int argc, char **argv, struct kernel_opts *o)
{
	int r = parse_options(argc, argv, o);

	if (!r && !o->c.file)
		return sibyl_err("kernel: FILE.cl is required (see --help)");
	/* Two inputs to compare, each run twice (check.h). */
	if (!r && o->check && o->samples == 1)
		o->samples = SIBYL_CHECK_SAMPLES;
	/* Fenced buffers: a kernel reading or writing past one faults at that
	 * access, every run, where it would corrupt the runner's heap and
	 * crash later or not (Rodinia myocyte: verdicts that varied). */
	if (!r && o->check)
		o->fence = true;
	return r ? r : check_modes(o);
}
