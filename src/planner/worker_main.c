/*
 * sibyl-plan-worker: where `sibyl plan` runs an adapter (sampler.c).
 * Internal, started by sibyl only; it speaks worker_protocol.h on the
 * descriptors core/run.h names.  A program of its own so that it links
 * no LLVM: OpenCL runtimes such as PoCL bring their own.
 */
#include "planner/sampler.h"
#include "planner/worker_protocol.h"
#include "planner/adapters/opencl.h"
#include "core/log.h"
#include "core/run.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1 || fcntl(SIBYL_RUN_REQUEST_FD, F_GETFD) < 0 ||
	    fcntl(SIBYL_RUN_REPORT_FD, F_GETFD) < 0)
		return sibyl_err("sibyl-plan-worker: an internal helper of `sibyl plan`"), 2;
	signal(SIGPIPE, SIG_DFL);   /* sibyl ignores it, and exec keeps that */
	signal(SIGINT, SIG_IGN);    /* the planner's to act on (worker.h) */
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sibyl_adapters_opencl_enable();
	int progress = fcntl(SIBYL_PLAN_PROGRESS_FD, F_GETFD) < 0 ? -1 : SIBYL_PLAN_PROGRESS_FD;
	int status = sibyl_sampler_serve(SIBYL_RUN_REQUEST_FD, SIBYL_RUN_REPORT_FD, progress);

	/* No exit handlers: an OpenCL runtime's may hang after fini. */
	fflush(NULL);
	_exit(status);
}
