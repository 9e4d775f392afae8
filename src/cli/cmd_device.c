/* sibyl device: profile an OpenCL device's latencies and bandwidth. */
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/options.h"
#include "ocl/device/device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef SIBYL_VERSION
#define SIBYL_VERSION "unknown"
#endif

#define DEFAULT_REPEAT 10
#define QUICK_REPEAT 3
#define DEFAULT_MAX_BYTES (1ull << 30)
#define QUICK_MAX_BYTES (1ull << 20)

static const struct sibyl_command_help help = {
	"device", "[--platform P] [--device D] [--repeat N] [--max-bytes SIZE] [--quick] "
	"[-o PROFILE.json] [--force] [--json] | --list | --show PROFILE.json",
	"Measure one OpenCL device: command latency, host->device, device->host and "
	"device->device latency, empty-kernel launch overhead, the cost of event profiling, "
	"and a bandwidth curve from 64 B to 1 GiB in x4 steps per direction, with a fitted "
	"transfer model (latency + bytes / bandwidth).  Prints a table; -o writes the "
	"device-profile JSON that `sibyl predict` reads (docs/device.md).  P and D are an "
	"index or a name substring (see --list).  --show prints a saved profile.",
};

struct device_args {
	const char *platform, *device, *repeat, *max_bytes, *out, *show;
	bool quick, force, json, list;
};

/* The bandwidth curve's largest point: 64 B x 4^(points - 1) (4 PiB). */
#define MAX_BYTES (SIBYL_BW_MIN_BYTES << 2 * (SIBYL_BW_MAX_POINTS - 1))
#define MAX_REPEAT 100000

/* --repeat is a string: a sentinel long would make one value "not given". */
static int parse_repeat(const char *s, unsigned *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > MAX_REPEAT)
		return sibyl_err("device: --repeat: '%s' is not a whole number in 1..%d", s,
				 MAX_REPEAT);
	*out = (unsigned)v;
	return 0;
}

static int check_args(struct device_args *a, struct sibyl_device_run *run)
{
	run->platform = a->platform;
	run->device = a->device;
	run->quick = a->quick;
	run->repeat = a->quick ? QUICK_REPEAT : DEFAULT_REPEAT;
	run->max_bytes = a->quick ? QUICK_MAX_BYTES : DEFAULT_MAX_BYTES;
	run->progress = isatty(STDERR_FILENO);
	run->sibyl_version = SIBYL_VERSION;
	if (a->repeat && parse_repeat(a->repeat, &run->repeat))
		return -1;
	if (a->max_bytes && (sibyl_parse_bytes(a->max_bytes, &run->max_bytes) ||
			     run->max_bytes < SIBYL_BW_MIN_BYTES || run->max_bytes > MAX_BYTES))
		return sibyl_err("device: --max-bytes: '%s' is not a size of at least 64 bytes and "
				 "at most 4 PiB (e.g. 4096, 64M, 1G)", a->max_bytes);
	/* Refuse before measuring, not after a minute of work. */
	char err[1024];

	if (a->out && sibyl_refuse_overwrite(a->out, a->force, err, sizeof(err)))
		return sibyl_err("device: %s", err);
	return 0;
}

static int print_profile(const struct device_args *a, const struct sibyl_device_profile *p)
{
	if (a->json) {
		char *text = sibyl_device_profile_dump(p);

		if (!text)
			return sibyl_err("device: cannot encode the device profile");
		puts(text);
		free(text);
	} else {
		sibyl_device_profile_print(stdout, p);
	}
	if (fflush(stdout))
		return sibyl_err_errno("device: writing the report");
	return 0;
}

int cmd_device(int argc, char **argv)
{
	struct device_args a = { 0 };
	struct sibyl_option opts[] = {
		{ "platform", 'p', SIBYL_OPT_STRING, &a.platform, "P", "platform index or name" },
		{ "device", 'd', SIBYL_OPT_STRING, &a.device, "D", "device index or name" },
		{ "repeat", 0, SIBYL_OPT_STRING, &a.repeat, "N",
		  "samples per bandwidth size (default 10, --quick 3); latencies take 5N" },
		{ "max-bytes", 0, SIBYL_OPT_STRING, &a.max_bytes, "SIZE",
		  "largest transfer, e.g. 64M (default 1G, --quick 1M)" },
		{ "quick", 'q', SIBYL_OPT_FLAG, &a.quick, NULL, "a short run (for tests)" },
		{ "output", 'o', SIBYL_OPT_STRING, &a.out, "PROFILE.json",
		  "write the device profile" },
		{ "force", 'f', SIBYL_OPT_FLAG, &a.force, NULL, "overwrite an existing -o file" },
		{ "json", 0, SIBYL_OPT_FLAG, &a.json, NULL, "print the profile JSON, not the table" },
		{ "list", 0, SIBYL_OPT_FLAG, &a.list, NULL, "list platforms and devices" },
		{ "show", 0, SIBYL_OPT_STRING, &a.show, "PROFILE.json",
		  "print a saved device profile (checks it)" },
		SIBYL_OPT_END,
	};
	struct sibyl_device_run run;
	struct sibyl_device_profile *p;
	char err[1024];
	int operands, r;

	r = sibyl_cli_options(&help, opts, argc, argv, false, &operands);
	if (r)
		return r > 0 ? 0 : 2;
	if (operands)
		return sibyl_err("device: unexpected argument '%s' (see --help)", argv[1]), 2;
	if (a.list)
		return sibyl_device_list_child(a.json, err, sizeof(err)) ? -sibyl_err("%s", err) : 0;
	if (!a.show && check_args(&a, &run))
		return 2;
	p = sibyl_xmalloc(sizeof(*p));	/* ~15 KB: keep it off the stack */
	if (a.show)
		r = sibyl_device_profile_load(a.show, p, err, sizeof(err));
	else
		r = sibyl_device_measure_child(&run, p, err, sizeof(err));
	if (r)
		sibyl_err("%s", err);
	if (!r)
		r = print_profile(&a, p);
	if (!r && a.out && !a.show && (r = sibyl_device_profile_save(a.out, p, err, sizeof(err))))
		sibyl_err("%s", err);
	free(p);
	return r ? 1 : 0;
}
