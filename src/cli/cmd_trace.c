/*
 * sibyl trace: run a command with libsibyl-rt.so and the given wrapper
 * libraries preloaded, record into a trace directory, and exit exactly as
 * the command did (same status, or the same fatal signal).
 */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "cli/trace_preload.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/options.h"
#include "core/run.h"
#include "trace/drain.h"
#include "trace/meta_write.h"

#include <sibyl/trace.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct sibyl_command_help help = {
	"trace",
	"[--wrap LIB.so]... [-o DIR] [--force] [--shared] [--interpose MODE] -- CMD [ARGS...]",
	"Run CMD with the sibyl runtime and the wrapper libraries interposed and\n"
	"record every intercepted call into DIR (default: " SIBYL_DEFAULT_TRACE_DIR ").  Only the\n"
	"program's bindings to the wrapped libraries change (the dynamic linker's\n"
	"audit interface), calls through dlsym included.  Forked\n"
	"children, exec'd programs and all threads are traced too.  Exits with\n"
	"the command's own status.",
};

static volatile sig_atomic_t child_pid, stop_probing;

/* To the command while it runs; after it, a signal stops the start-up
 * probes (a pid reaped may have been given to another process). */
static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
	else
		stop_probing = 1;
}

/* libsibyl-rt.so next to an installed sibyl, else in the build tree. */
static char *find_runtime(void)
{
	char *dir = sibyl_self_dir();
	char *path = NULL;

	if (dir) {
		char *lib = sibyl_path_join(dir, "../lib/libsibyl-rt.so");

		path = realpath(lib, NULL);
		free(lib);
		free(dir);
	}
	if (!path)
		path = realpath(SIBYL_BUILD_LIB_DIR "/libsibyl-rt.so", NULL);
	return path;
}

/* Start the command with the runtime preloaded; a command that cannot
 * start is reported as a shell would (127: not found, 126: not runnable). */
/* The variables a traced process starts with (malloc'd, NULL-ended). */
static void traced_env(char *vars[5], const char *dir, const struct trace_preload *pre)
{
	vars[0] = sibyl_xasprintf("SIBYL_TRACE_DIR=%s", dir);
	vars[1] = sibyl_xasprintf("LD_PRELOAD=%s", pre->value);
	vars[2] = pre->audit ? sibyl_xasprintf("LD_AUDIT=%s", pre->audit) : NULL;
	vars[3] = pre->audit ? sibyl_xasprintf("SIBYL_WRAPPERS=%s", pre->wrapper_list) : NULL;
	vars[4] = NULL;
}

/* Preload mode: the program's own SIBYL_WRAPPERS would load them twice. */
static const char *const preload_unset[] = { "SIBYL_WRAPPERS", NULL };

static void free_env(char *vars[5])
{
	for (size_t i = 0; vars[i]; i++)
		free(vars[i]);
}

/* What starting and ending a process costs it traced like the command
 * (startup.c), probed in a scratch directory inside the trace's. */
static double startup_ns(const char *dir, const struct trace_preload *pre, uint64_t ring_bytes,
			 char *why, size_t whylen)
{
	char *probe_dir = sibyl_xasprintf("%s/.startup-probe", dir), *vars[5];

	if (mkdir(probe_dir, 0700) < 0) {
		snprintf(why, whylen, "cannot make %s: %s", probe_dir, strerror(errno));
		free(probe_dir);
		return NAN;
	}
	traced_env(vars, probe_dir, pre);
	double ns = sibyl_interposition_startup_ns((const char *const *)vars,
						   pre->audit ? NULL : preload_unset, probe_dir,
						   ring_bytes, &stop_probing, why, whylen);

	free_env(vars);
	sibyl_remove_tree(probe_dir);
	free(probe_dir);
	return ns;
}

static int start_command(char **cmd, const char *dir, const struct trace_preload *pre,
			 struct sibyl_child *child, struct sibyl_run_status *st)
{
	char *vars[5];

	traced_env(vars, dir, pre);
	struct sibyl_run_spec spec = { .argv = cmd, .set = (const char *const *)vars,
				       .unset = pre->audit ? NULL : preload_unset };
	int r = sibyl_run_start(&spec, child, st);

	free_env(vars);
	if (r < 0 && !strcmp(st->step, "fork"))
		return sibyl_err("trace: cannot start '%s': %s", cmd[0], strerror(st->code));
	if (r < 0) {
		sibyl_err("trace: cannot run '%s': %s", cmd[0], strerror(st->code));
		*st = (struct sibyl_run_status){ SIBYL_RUN_FAILED, st->code == ENOENT ? 127 : 126,
						 NULL };
	}
	return 0;
}

static void wait_command(struct sibyl_child *child, struct sibyl_run_status *st)
{
	struct sigaction fwd = { .sa_handler = forward_signal }, ign = { .sa_handler = SIG_IGN };
	const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };

	if (child->pid < 0)
		return;		/* it did not start */
	child_pid = child->pid;
	/* Like time(1): the terminal's SIGINT/SIGQUIT reach the child directly. */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &fwd, NULL);
	sibyl_run_wait(child, 0, st);
	child_pid = 0;
	/* SIGINT and SIGQUIT now also end the probes, not sibyl mid-trace. */
	sigaction(SIGINT, &fwd, NULL);
	sigaction(SIGQUIT, &fwd, NULL);
}

/* Leave the way the command left: same exit code or same signal. */
static int exit_like(const struct sibyl_run_status *st)
{
	if (st->outcome == SIBYL_RUN_CRASHED) {
		int sig = st->code;
		struct rlimit no_core = { 0, 0 };
		sigset_t set;

		setrlimit(RLIMIT_CORE, &no_core);	/* the child already dumped */
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		return 128 + sig;
	}
	return st->code;
}

/* In the parent only (after fork): the command keeps its own limits. */
static void raise_fd_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

/* The runtime records nothing under a longer path (SIBYL_TRACE_DIR_MAX):
 * refuse before running the program rather than lose every call. */
static int check_dir_length(const char *path)
{
	char cwd[PATH_MAX];
	size_t len = strlen(path);

	if (path[0] != '/')
		len += getcwd(cwd, sizeof(cwd)) ? strlen(cwd) + 1 : PATH_MAX;
	if (len < SIBYL_TRACE_DIR_MAX)
		return 0;
	return sibyl_err("trace: %s: path too long for a trace directory (%zu bytes; the "
			 "runtime takes at most %d)", path, len, SIBYL_TRACE_DIR_MAX - 1);
}

/* Drain what is left and say what the trace lacks; true when nothing. */
static bool finish_trace(struct sibyl_drain *drain, const char *dir)
{
	uint64_t threads = 0, calls = 0;
	bool complete = sibyl_drain_finish(drain) == 0;

	if (sibyl_trace_lost(dir, &threads, &calls) == 0 && threads) {
		sibyl_warn("trace: %llu threads could not be recorded (no buffer could be created "
			   "for them: descriptors, memory or disk exhausted); their %llu calls are "
			   "counted as lost", (unsigned long long)threads, (unsigned long long)calls);
		complete = false;
	}
	if (!complete)
		sibyl_warn("trace: the trace in %s is incomplete", dir);
	return complete;
}

/* Record `command` into dir: meta.json, the drainer, the command and
 * what it left.  The command's own exit status (as a shell gives it),
 * or 2 when sibyl failed. */
static int record(char **command, const char *dir, const struct trace_preload *pre,
		  bool drained, long ring_kb)
{
	struct sibyl_trace_run run = { .command = command, .wrappers = &pre->wrappers };
	struct sibyl_drain *drain = NULL;
	struct sibyl_child child;
	char err[1024];

	sibyl_clock_pair(&run.clock.ref_tsc, &run.clock.ref_ns);
	run.clock.tsc_per_ns = 1;	/* refined when the command ends */
	run.start_ns = run.clock.ref_ns;
	if (sibyl_trace_meta_write(dir, &run) < 0)
		return -sibyl_err_errno("trace: cannot write %s/meta.json", dir);
	sibyl_info("tracing into %s with LD_PRELOAD=%s", dir, pre->value);
	if (pre->audit)
		sibyl_info("and LD_AUDIT=%s SIBYL_WRAPPERS=%s", pre->audit, pre->wrapper_list);
	if (drained && !(drain = sibyl_drain_create(dir, (uint64_t)ring_kb * 1024, err,
						     sizeof(err))))
		return sibyl_err("trace: %s", err), 2;
	int perf_hooks = pre->counters ? sibyl_perf_hooks_hold() : -1;

	run.start_ns = sibyl_mono_ns();	/* the command's time: from here to its end */
	if (start_command(command, dir, pre, &child, &run.status) < 0) {
		sibyl_perf_hooks_release(perf_hooks);
		sibyl_drain_finish(drain);
		return 2;
	}
	run.root_pid = child.pid > 0 ? child.pid : 0;	/* 0: it did not start */
	raise_fd_limit();	/* the drainer keeps a file open per live thread */
	if (drain && sibyl_drain_start(drain, err, sizeof(err)) < 0) {
		sibyl_err("trace: %s", err);
		sibyl_warn("trace: records will be drained when the command ends");
	}
	wait_command(&child, &run.status);
	/* Draining what it left is sibyl's time, not the command's. */
	run.end_ns = sibyl_mono_ns();
	sibyl_perf_hooks_release(perf_hooks);
	run.complete = finish_trace(drain, dir);
	run.finished = true;
	sibyl_interposition_measure(&run.costs, pre->counters);
	run.costs.startup_ns = startup_ns(dir, pre, drained ? (uint64_t)ring_kb * 1024 : 0,
					  run.costs.startup_why, sizeof(run.costs.startup_why));
	/* Calibrate over the whole run (at least 20 ms) for a precise rate. */
	sibyl_clock_calibrate(&run.clock, run.clock.ref_tsc, run.clock.ref_ns, 20000000);
	if (sibyl_trace_meta_write(dir, &run) < 0)
		sibyl_err_errno("trace: cannot write %s/meta.json", dir);
	sibyl_info("trace written to %s", dir);
	return exit_like(&run.status);
}

int cmd_trace(int argc, char **argv)
{
	const char *out = SIBYL_DEFAULT_TRACE_DIR, *interpose = "audit";
	bool force = false, verbose = false, no_drain = false, shared = false;
	long ring_kb = 4096;
	struct sibyl_strlist wraps = { 0 };
	struct trace_preload pre;
	struct sibyl_option opts[] = {
		{ "wrap", 'w', SIBYL_OPT_LIST, &wraps, "LIB.so", "interpose this wrapper library (repeatable)" },
		{ "interpose", 0, SIBYL_OPT_STRING, &interpose, "MODE", "audit (default: only bindings to the wrapped libraries change) or preload (LD_PRELOAD the wrappers)" },
		{ "output", 'o', SIBYL_OPT_STRING, &out, "DIR", "trace directory (default: " SIBYL_DEFAULT_TRACE_DIR ")" },
		{ "force", 'f', SIBYL_OPT_FLAG, &force, NULL, "replace an existing trace directory" },
		{ "shared", 0, SIBYL_OPT_FLAG, &shared, NULL, "let others read the trace (0755/0644 less the umask; default 0700/0600)" },
		{ "ring-kb", 0, SIBYL_OPT_LONG, &ring_kb, "KIB", "per-thread ring drained while the program runs (default 4096)" },
		{ "no-drain", 0, SIBYL_OPT_FLAG, &no_drain, NULL, "let each thread write its file directly (slower per call)" },
		{ "verbose", 'v', SIBYL_OPT_FLAG, &verbose, NULL, "say what is being done" },
		SIBYL_OPT_END,
	};
	int ncmd, r = sibyl_cli_options(&help, opts, argc, argv, true, &ncmd);

	if (r)
		return r > 0 ? 0 : 2;
	sibyl_set_verbose(verbose);
	if (ring_kb < 4 || ring_kb > (1L << 30))
		return sibyl_err("trace: --ring-kb must be between 4 and 1073741824"), 2;
	if (strcmp(interpose, "audit") && strcmp(interpose, "preload"))
		return sibyl_err("trace: --interpose must be 'audit' or 'preload', not '%s'", interpose), 2;
	if (ncmd < 1)
		return sibyl_err("trace: no command given (usage: sibyl trace [options] -- CMD "
				 "ARGS...)"), 2;
	char *runtime = find_runtime();

	if (!runtime)
		return -sibyl_err("trace: cannot find libsibyl-rt.so (is sibyl installed completely?)");
	int lock = -1;

	if (check_dir_length(out) < 0)
		return 2;
	if (trace_preload_make(&pre, runtime, &wraps, !strcmp(interpose, "audit")) < 0 ||
	    (lock = trace_dir_prepare(out, force, shared)) < 0)
		return trace_preload_done(&pre), 2;

	char *dir = realpath(out, NULL);

	if (!dir)
		return -sibyl_err_errno("trace: %s", out);
	if (check_dir_length(dir) < 0)
		return 2;
	r = record(argv + 1, dir, &pre, !no_drain, ring_kb);
	trace_preload_done(&pre);
	close(lock);
	free(dir);
	free(runtime);
	sibyl_strlist_free(&wraps);
	return r;
}
