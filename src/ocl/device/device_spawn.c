/*
 * `sibyl device` measures in a child, sibyl-device-run: sibyl links
 * LLVM 14 (IR instrumentation) and an OpenCL runtime such as PoCL links
 * its own LLVM, which cannot share a process with it (PoCL's LLVM calls
 * bind to LLVM 14's symbols and crash in clBuildProgram).  The child
 * sends the device profile as one message {"event":"profile","profile":
 * {...}} (core/helper.h); we read it back through the same checked
 * parser any other reader uses.
 */
#define _GNU_SOURCE
#include "ocl/device/device.h"
#include "core/helper.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The profile the child sent, as text for the parser. */
static double on_profile(void *ctx, json_t *msg)
{
	char **text = ctx;
	json_t *p = json_object_get(msg, "profile");

	if (!*text && json_is_object(p))
		*text = json_dumps(p, JSON_COMPACT);
	return 0;
}

/* Run the child with `args` (argv[0] filled in here); the profile it
 * sends goes to *text (malloc'd) when text is not NULL. */
static int run_child(const char **args, char **text, char *err, size_t errlen)
{
	char *path = sibyl_run_helper_path("sibyl-device-run", "SIBYL_DEVICE_RUNNER");
	struct sibyl_helper h = { (char *const *)args, text ? on_profile : NULL, text, 0, 0 };
	struct sibyl_run_status st;
	int r = 0;

	args[0] = path;
	if (sibyl_helper_run(&h, &st, err, errlen) < 0)
		r = sibyl_seterr(err, errlen, "device: cannot run %s: %s", path, strerror(st.code));
	else if (st.outcome == SIBYL_RUN_FAILED && *err)
		r = -1;		/* the child's own line */
	else if (st.outcome == SIBYL_RUN_CRASHED || st.outcome == SIBYL_RUN_TIMED_OUT)
		r = sibyl_seterr(err, errlen, "device: %s crashed (signal %d)", path, st.code);
	else if (st.outcome == SIBYL_RUN_FAILED)
		r = sibyl_seterr(err, errlen, "device: %s exited with status %d", path, st.code);
	free(path);
	return r;
}

int sibyl_device_measure_child(const struct sibyl_device_run *run,
			       struct sibyl_device_profile *p, char *err, size_t errlen)
{
	char repeat[32], max_bytes[32], why[512];
	const char *args[] = { NULL, "measure", run->platform ? run->platform : "",
			       run->device ? run->device : "", repeat, max_bytes,
			       run->quick ? "1" : "0", run->progress ? "1" : "0",
			       run->sibyl_version, NULL };
	char *text = NULL;

	snprintf(repeat, sizeof(repeat), "%u", run->repeat);
	snprintf(max_bytes, sizeof(max_bytes), "%llu", (unsigned long long)run->max_bytes);
	if (run_child(args, &text, err, errlen)) {
		free(text);
		return -1;
	}
	int r = sibyl_device_profile_parse(text ? text : "", text ? strlen(text) : 0, p, why,
					   sizeof(why));

	free(text);
	return r ? sibyl_seterr(err, errlen, "device: the measuring process gave a bad profile: "
				"%s", why) : 0;
}

int sibyl_device_list_child(bool json, char *err, size_t errlen)
{
	const char *args[] = { NULL, "list", json ? "json" : "text", NULL };

	return run_child(args, NULL, err, errlen);
}
