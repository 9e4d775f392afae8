/*
 * `sibyl device` measures in a child, sibyl-device-run: sibyl links
 * LLVM 14 (IR instrumentation) and an OpenCL runtime such as PoCL links
 * its own LLVM, which cannot share a process with it (PoCL's LLVM calls
 * bind to LLVM 14's symbols and crash in clBuildProgram).  The child
 * sends the device profile as one JSON line (core/run.h); we read it back
 * through the same checked parser any other reader uses.
 */
#define _GNU_SOURCE
#include "ocl/device/device.h"
#include "core/log.h"
#include "core/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A device profile is a few kilobytes; this is far beyond any. */
#define PROFILE_MAX ((size_t)16 << 20)

/* Run the child with `args` (argv[0] filled in here); its report (the
 * profile, one JSON line) goes to *out (malloc'd, NUL-terminated) when
 * out is not NULL. */
static int run_child(const char **args, char **out, size_t *len)
{
	char *path = sibyl_run_helper_path("sibyl-device-run", "SIBYL_DEVICE_RUNNER");
	struct sibyl_run_spec spec = { .argv = (char *const *)args };
	struct sibyl_run_status st;
	int r = 0;

	args[0] = path;
	if (out)
		sibyl_run_capture(&spec, SIBYL_RUN_REPORT_FD, PROFILE_MAX, out, len, &st);
	else
		sibyl_run(&spec, &st);
	if (st.outcome == SIBYL_RUN_NOT_STARTED)
		r = sibyl_err("device: cannot run %s: %s", path, strerror(st.code));
	else if (st.outcome == SIBYL_RUN_CRASHED)
		r = sibyl_err("device: %s crashed (signal %d)", path, st.code);
	else if (st.outcome == SIBYL_RUN_FAILED && st.code == SIBYL_DEVICE_RUN_FAILED)
		r = -1;		/* the child printed its one-line error */
	else if (st.outcome == SIBYL_RUN_FAILED)
		r = sibyl_err("device: %s exited with status %d", path, st.code);
	free(path);
	return r;
}

int sibyl_device_measure_child(const struct sibyl_device_run *run,
			       struct sibyl_device_profile *p)
{
	char repeat[32], max_bytes[32], err[512];
	const char *args[] = { NULL, "measure", run->platform ? run->platform : "",
			       run->device ? run->device : "", repeat, max_bytes,
			       run->quick ? "1" : "0", run->progress ? "1" : "0",
			       run->sibyl_version, NULL };
	char *text = NULL;
	size_t len = 0;

	snprintf(repeat, sizeof(repeat), "%u", run->repeat);
	snprintf(max_bytes, sizeof(max_bytes), "%llu", (unsigned long long)run->max_bytes);
	if (run_child(args, &text, &len)) {
		free(text);
		return -1;
	}
	int r = sibyl_device_profile_parse(text, len, p, err, sizeof(err));

	free(text);
	return r ? sibyl_err("device: the measuring process gave a bad profile: %s", err) : 0;
}

int sibyl_device_list_child(bool json)
{
	const char *args[] = { NULL, "list", json ? "json" : "text", NULL };

	return run_child(args, NULL, NULL);
}
