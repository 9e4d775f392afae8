/*
 * sibyl-device-run: the OpenCL half of `sibyl device`, a separate program
 * because sibyl's LLVM 14 and the OpenCL runtime's own LLVM cannot share
 * a process (device_spawn.c).  Internal interface, called by sibyl only:
 *
 *   sibyl-device-run measure PLATFORM DEVICE REPEAT MAX_BYTES QUICK PROGRESS VERSION
 *       sends the device profile, one JSON line on SIBYL_RUN_REPORT_FD
 *       (core/run.h; "" = first platform/device)
 *   sibyl-device-run list text|json
 *
 * Errors are one line on stderr and exit status SIBYL_DEVICE_RUN_FAILED,
 * which tells sibyl that the reason was already printed.
 */
#include "ocl/device/device.h"
#include "core/log.h"
#include "core/message.h"
#include "core/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int measure(char **argv)
{
	struct sibyl_device_run run = {
		.platform = *argv[0] ? argv[0] : NULL,
		.device = *argv[1] ? argv[1] : NULL,
		.repeat = (unsigned)strtoul(argv[2], NULL, 10),
		.max_bytes = strtoull(argv[3], NULL, 10),
		.quick = !strcmp(argv[4], "1"),
		.progress = !strcmp(argv[5], "1"),
		.sibyl_version = argv[6],
	};
	struct sibyl_device_profile *p = malloc(sizeof(*p));
	char *text = NULL;
	json_t *msg = NULL;

	if (!p || run.repeat == 0 || run.max_bytes < SIBYL_BW_MIN_BYTES)
		return sibyl_err("device: sibyl-device-run: bad arguments");
	int r = sibyl_device_measure(&run, p);

	if (!r && !(text = sibyl_device_profile_dump(p)))
		r = sibyl_err("device: cannot encode the device profile");
	if (!r && (!(msg = json_loads(text, 0, NULL)) ||
		   sibyl_msg_send(SIBYL_RUN_REPORT_FD, msg) < 0))
		r = sibyl_err_errno("device: sending the profile to sibyl");
	json_decref(msg);
	free(text);
	free(p);
	return r;
}

int main(int argc, char **argv)
{
	if (argc == 9 && !strcmp(argv[1], "measure"))
		return measure(argv + 2) ? SIBYL_DEVICE_RUN_FAILED : 0;
	if (argc == 3 && !strcmp(argv[1], "list"))
		return sibyl_device_list(stdout, !strcmp(argv[2], "json")) ? SIBYL_DEVICE_RUN_FAILED : 0;
	fprintf(stderr, "sibyl-device-run: internal helper of `sibyl device`\n");
	return 2;
}
