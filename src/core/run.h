/*
 * Running another program: every command and library that starts a
 * process goes through here (src/rt excepted: it observes the traced
 * program's own fork and exec).
 *
 * A child gets a chosen set of file descriptors (each entry of `fds`
 * puts one of ours at a fixed number in the child; descriptors not
 * named are inherited unless close-on-exec, so stdin, stdout and stderr
 * are inherited unless redirected), a chosen environment (ours, less
 * `unset`, plus `set`), an optional working directory and, if asked, a
 * process group of its own.  When it cannot start (no such program, a
 * bad directory), the reason comes back through a close-on-exec pipe:
 * the caller gets errno, never a mysterious exit status 127.
 *
 * The one protocol between sibyl and its helper programs: a helper
 * reports to its parent as JSON objects, one per line, written to file
 * descriptor SIBYL_RUN_REPORT_FD (3); a helper that takes requests while
 * it runs reads them the same way from SIBYL_RUN_REQUEST_FD (4)
 * (core/message.h reads and writes them).  stdin, stdout and stderr stay
 * the helper's own: a library that prints (PoCL does) cannot corrupt the
 * messages, and a helper's last words reach the user's terminal.
 */
#ifndef SIBYL_CORE_RUN_H
#define SIBYL_CORE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SIBYL_RUN_REPORT_FD 3
#define SIBYL_RUN_REQUEST_FD 4

/* In sibyl_run_fd.from: the child's descriptor reads and writes /dev/null. */
#define SIBYL_RUN_DEVNULL (-2)

/* Our descriptor `from` becomes the child's descriptor `to`. */
struct sibyl_run_fd {
	int from, to;
};

struct sibyl_run_spec {
	char *const *argv;		/* argv[0] is looked up in PATH unless it has a '/' */
	const struct sibyl_run_fd *fds;
	size_t nfds;
	/* The environment to start from, NULL-terminated; NULL: ours. */
	const char *const *base_env;
	const char *const *set;		/* "NAME=VALUE" to add or override; NULL-terminated */
	const char *const *unset;	/* names to remove; NULL-terminated */
	const char *dir;		/* working directory, NULL: ours */
	bool own_group;			/* its own process group; a timeout kills the group */
	/* A helper of ours: it gets SIGKILL when this process dies, however
	 * it dies, and a SIGINT, SIGTERM or SIGHUP that ends this process
	 * kills and reaps it first (core/cleanup.h). */
	bool die_with_parent;
	double timeout_s;		/* sibyl_run and sibyl_run_capture; <= 0: none */
};

enum sibyl_run_outcome {
	SIBYL_RUN_OK,		/* exited 0 */
	SIBYL_RUN_FAILED,	/* exited non-zero: code */
	SIBYL_RUN_CRASHED,	/* killed by signal `code` */
	SIBYL_RUN_TIMED_OUT,	/* past its deadline: killed by signal `code` */
	SIBYL_RUN_NOT_STARTED,	/* errno `code`, at `step` */
};

struct sibyl_run_status {
	enum sibyl_run_outcome outcome;
	int code;
	const char *step;	/* NOT_STARTED: "fork", "chdir", "dup2" or "exec" */
};

/* A started child. */
struct sibyl_child {
	pid_t pid;
	int pidfd;		/* -1 where the kernel has no pidfd_open */
	bool own_group;
	bool tracked;		/* by core/cleanup.h until reaped */
};

/* A child past its deadline gets SIGTERM, and SIGKILL this long after. */
#define SIBYL_RUN_GRACE_S 1.0

/* Start the child: 0, or -1 with st saying why it did not start. */
int sibyl_run_start(const struct sibyl_run_spec *spec, struct sibyl_child *c,
		    struct sibyl_run_status *st);
/* Wait for it to end (waitpid retried on EINTR) until deadline_ns
 * (sibyl_mono_ns; 0: no deadline), then kill it as sibyl_run_kill does.
 * It is always reaped. */
void sibyl_run_wait(struct sibyl_child *c, uint64_t deadline_ns, struct sibyl_run_status *st);
/* Its deadline passed: SIGTERM (to its group if it has one), SIGKILL
 * after SIBYL_RUN_GRACE_S, reaped; st says TIMED_OUT. */
void sibyl_run_kill(struct sibyl_child *c, struct sibyl_run_status *st);
/* SIGKILL and reap, async-signal-safe: what core/cleanup.c's handler
 * does to the children it tracks (pid negative: the process group). */
void sibyl_run_kill_now(pid_t pid);

/* Start, then wait until spec->timeout_s has passed: the status. */
void sibyl_run(const struct sibyl_run_spec *spec, struct sibyl_run_status *st);
/* The same, collecting what the child writes to its descriptor child_fd
 * (kept up to max bytes, the rest read and dropped): *out is malloc'd
 * and NUL-terminated, "" when the child did not start. */
void sibyl_run_capture(const struct sibyl_run_spec *spec, int child_fd, size_t max,
		       char **out, size_t *len, struct sibyl_run_status *st);

/* "exited with status 3", "killed by SIGSEGV", "timed out (killed by
 * SIGTERM)", "cannot run: No such file or directory": for messages of
 * the form "<program> <description>". */
const char *sibyl_run_describe(const struct sibyl_run_status *st, char *buf, size_t len);

/* A helper program: $env_var when set, else `program` next to the
 * running executable (the build tree's bin/), else in ../libexec/sibyl
 * from it (an installed sibyl, docs/install.md), else `program` alone
 * (looked up in PATH).  malloc'd. */
char *sibyl_run_helper_path(const char *program, const char *env_var);

#endif
