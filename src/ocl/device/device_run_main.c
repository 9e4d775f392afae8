/*
 * sibyl-device-run: the OpenCL half of `sibyl device`, a separate program
 * because sibyl's LLVM 14 and the OpenCL runtime's own LLVM cannot share
 * a process (device_spawn.c).  Internal interface, called by sibyl only:
 *
 *   sibyl-device-run measure PLATFORM DEVICE REPEAT MAX_BYTES QUICK PROGRESS VERSION
 *       sends the device profile, {"event":"profile","profile":{...}}, on
 *       SIBYL_RUN_REPORT_FD ("" = first platform/device)
 *   sibyl-device-run list text|json
 *       prints the list on its stdout
 *
 * Errors and warnings go to sibyl on the same descriptor (core/helper.h),
 * which prints them; the exit status is then 1.
 */
#include "ocl/device/device.h"
#include "core/helper.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/message.h"
#include "core/run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int measure(char **argv, char *err, size_t errlen)
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
	struct sibyl_device_profile *p = sibyl_xmalloc(sizeof(*p));
	char *text = NULL;
	json_t *msg = NULL;
	int r = 0;

	if (run.repeat == 0 || run.max_bytes < SIBYL_BW_MIN_BYTES)
		r = sibyl_seterr(err, errlen, "device: sibyl-device-run: bad arguments");
	if (!r)
		r = sibyl_device_measure(&run, p, err, errlen);
	if (!r && !(text = sibyl_device_profile_dump(p)))
		r = sibyl_seterr(err, errlen, "device: cannot encode the device profile");
	if (!r && (!(msg = json_pack("{s:s, s:o}", "event", "profile", "profile",
				       json_loads(text, 0, NULL))) ||
		   sibyl_msg_send(SIBYL_RUN_REPORT_FD, msg) < 0))
		r = sibyl_seterr_errno(err, errlen, "device: sending the profile to sibyl");
	json_decref(msg);
	free(text);
	free(p);
	return r;
}

int main(int argc, char **argv)
{
	char err[1024] = "";
	int r;

	if (fcntl(SIBYL_RUN_REPORT_FD, F_GETFD) < 0 ||
	    !((argc == 9 && !strcmp(argv[1], "measure")) || (argc == 3 && !strcmp(argv[1], "list"))))
		return sibyl_err("sibyl-device-run: internal helper of `sibyl device`"), 2;
	sibyl_helper_report_to(SIBYL_RUN_REPORT_FD);
	if (argc == 9)
		r = measure(argv + 2, err, sizeof(err));
	else
		r = sibyl_device_list(stdout, !strcmp(argv[2], "json"), err, sizeof(err));
	if (r)
		sibyl_helper_error(SIBYL_RUN_REPORT_FD, err);
	return r ? 1 : 0;
}
