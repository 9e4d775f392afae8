/*
 * sibyl-kernel-run CONFIG.json: the OpenCL half of `sibyl kernel`, a
 * program of its own because OpenCL runtimes such as PoCL embed their
 * own LLVM, which crashes next to the LLVM 14 that sibyl links for
 * bitcode work. Started by guard.c; events, notices and the error line
 * go to file descriptor 3 (core/helper.h).  Only a start by hand, with
 * nowhere to report, is told so on stderr.
 */
#include "ocl/driver/run.h"
#include "core/fs.h"
#include "core/helper.h"
#include "core/log.h"
#include "core/run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

/* Under AddressSanitizer: the runner keeps its OpenCL objects to the end
 * on purpose (run.c), so leak reports would only list PoCL's; and a
 * crashing kernel must die of its signal, which sibyl reports. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0";
}

int main(int argc, char **argv)
{
	struct sibyl_run_cfg cfg;
	struct sibyl_kernel k;
	json_error_t jerr;
	char err[2048];

	if (argc != 2 || fcntl(SIBYL_RUN_REPORT_FD, F_GETFD) < 0)
		return sibyl_err("usage: sibyl-kernel-run CONFIG.json (started by sibyl kernel)"), 2;
	sibyl_helper_report_to(SIBYL_RUN_REPORT_FD);
	json_t *j = json_load_file(argv[1], 0, &jerr);

	if (!j || sibyl_run_cfg_from_json(j, &cfg, &k) < 0) {
		snprintf(err, sizeof(err), "kernel: bad run configuration %s: %s", argv[1], jerr.text);
		sibyl_helper_error(SIBYL_RUN_REPORT_FD, err);
		return 2;
	}
	int r = cfg.probe ? sibyl_run_probe(&cfg, SIBYL_RUN_REPORT_FD, err, sizeof(err))
			  : sibyl_run_samples(&cfg, SIBYL_RUN_REPORT_FD, err, sizeof(err));

	if (r)
		sibyl_helper_error(SIBYL_RUN_REPORT_FD, err);
	sibyl_kernel_free(&k);
	json_decref(j);
	return r;
}
