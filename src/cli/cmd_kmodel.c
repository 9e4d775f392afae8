/* sibyl kmodel: predict an OpenCL kernel's time from small runs (docs/kmodel.md). */
#include "cli/commands.h"
#include "core/log.h"
#include "core/options.h"
#include "kmodel/dataset.h"
#include "kmodel/suite.h"

#include <stdio.h>
#include <string.h>

static const struct sibyl_command_help dataset_help = {
	"kmodel dataset", "SUITE.json -o DATA.jsonl [-n SAMPLES] [-k NAME] [--platform P --device D] "
	"[--timeout S]",
	"Sweep every kernel of a training suite (a manifest of OpenCL kernels and global sizes, "
	"e.g. tests/kernels/suite/suite.json) and append one JSON line per sample to DATA.jsonl: "
	"the dynamic LLVM instruction counts of an instrumented run and the device time of the "
	"plain kernel with the same arguments.  Resumable: global sizes already in DATA.jsonl "
	"are skipped, so an interrupted run carries on where it stopped.  See docs/kmodel.md.",
};

static int kmodel_dataset(int argc, char **argv)
{
	struct sibyl_kmodel_dataset_opts o = { .timeout_s = 60 };
	struct sibyl_kmodel_suite s;
	struct sibyl_option opts[] = {
		{ "output", 'o', SIBYL_OPT_STRING, &o.out, "DATA.jsonl",
		  "the dataset, created or carried on" },
		{ "samples", 'n', SIBYL_OPT_LONG, &o.samples, "N",
		  "samples per global size (the suite's, else 3)" },
		{ "kernel", 'k', SIBYL_OPT_STRING, &o.only, "NAME", "only this kernel of the suite" },
		{ "platform", 'p', SIBYL_OPT_STRING, &o.platform, "P", "platform: index or name" },
		{ "device", 'd', SIBYL_OPT_STRING, &o.device, "D", "device: index or name" },
		{ "timeout", 0, SIBYL_OPT_DOUBLE, &o.timeout_s, "S",
		  "seconds a sample may run, 0: no limit (60)" },
		SIBYL_OPT_END,
	};
	int n, r = sibyl_cli_options(&dataset_help, opts, argc, argv, false, &n);
	char err[1024];

	if (r)
		return r > 0 ? 0 : 2;
	if (n != 1 || !o.out)
		return sibyl_err("kmodel dataset: expected SUITE.json and -o DATA.jsonl (see --help)"), 2;
	if (o.samples < 0 || o.samples > 1000 || !(o.timeout_s >= 0 && o.timeout_s <= 86400))
		return sibyl_err("kmodel dataset: -n must be in 0..1000 and --timeout in 0..86400"), 2;
	if (sibyl_kmodel_suite_read(argv[1], &s, err, sizeof(err)) < 0)
		return sibyl_err("%s", err), 1;
	r = sibyl_kmodel_dataset(&s, &o, err, sizeof(err));
	if (r < 0)
		sibyl_err("%s", err);
	sibyl_kmodel_suite_free(&s);
	return r ? 1 : 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} subcommands[] = {
	{ "dataset", kmodel_dataset },
};

static const struct sibyl_command_help kmodel_help = {
	"kmodel", "dataset SUITE.json -o DATA.jsonl ...",
	"Predict an OpenCL kernel's device time at any global size from small runs (OCLMan, "
	"Niarchos 2020 Part VII).  Subcommands: dataset (sweep a training suite into counts and "
	"times).  See docs/kmodel.md.",
};

int cmd_kmodel(int argc, char **argv)
{
	struct sibyl_option opts[] = { SIBYL_OPT_END };
	int n, r;

	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	r = sibyl_cli_options(&kmodel_help, opts, argc, argv, true, &n);
	if (r)
		return r > 0 ? 0 : 2;
	if (n)
		return sibyl_err("kmodel: '%s' is not a subcommand: dataset (see --help)", argv[1]), 2;
	return sibyl_err("kmodel: expected a subcommand: dataset (see --help)"), 2;
}
