/* The child-process runner (core/run.h). */
#define _GNU_SOURCE
#include "core/run.h"
#include "core/alloc.h"
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const steps[] = { "fork", "chdir", "dup2", "exec" };
enum { STEP_FORK, STEP_CHDIR, STEP_DUP2, STEP_EXEC };

/* What the child sends back through the close-on-exec pipe when it
 * cannot become the program. */
struct start_failure {
	int step, err;
};

static bool named(const char *entry, const char *const *names, bool with_value)
{
	for (size_t i = 0; names && names[i]; i++) {
		size_t n = with_value ? strcspn(names[i], "=") : strlen(names[i]);

		if (!strncmp(entry, names[i], n) && entry[n] == '=')
			return true;
	}
	return false;
}

/* Ours (or spec->base_env) less spec->unset and the names spec->set
 * overrides, then spec->set; the strings are borrowed.  Built before
 * fork: the child must not allocate. */
static char **child_environment(const struct sibyl_run_spec *spec)
{
	char *const *base = spec->base_env ? (char *const *)spec->base_env : environ;
	size_t n = 0, k = 0, nset = 0;

	while (base[n])
		n++;
	while (spec->set && spec->set[nset])
		nset++;
	char **env = sibyl_xcalloc(n + nset + 1, sizeof(*env));

	for (size_t i = 0; i < n; i++)
		if (!named(base[i], spec->unset, false) && !named(base[i], spec->set, true))
			env[k++] = base[i];
	for (size_t i = 0; i < nset; i++)
		env[k++] = (char *)spec->set[i];
	return env;
}

static void __attribute__((noreturn)) fail_start(int errfd, int step)
{
	struct start_failure f = { step, errno };

	if (write(errfd, &f, sizeof(f)) < 0) {
		/* the parent then sees exit status 127 */
	}
	_exit(127);
}

/* Put every spec->fds entry at its number.  Each goes first to a number
 * above all targets, so that placing one never overwrites another's
 * source; dup2 then clears close-on-exec on the target. */
static int place_fds(const struct sibyl_run_spec *spec, int *errfd)
{
	int above = 3, tmp[spec->nfds ? spec->nfds : 1];

	for (size_t i = 0; i < spec->nfds; i++)
		if (spec->fds[i].to >= above)
			above = spec->fds[i].to + 1;
	if ((*errfd = fcntl(*errfd, F_DUPFD_CLOEXEC, above)) < 0)
		return -1;
	for (size_t i = 0; i < spec->nfds; i++) {
		int from = spec->fds[i].from;

		if (from == SIBYL_RUN_DEVNULL)
			from = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (from < 0 || (tmp[i] = fcntl(from, F_DUPFD_CLOEXEC, above)) < 0)
			return -1;
	}
	for (size_t i = 0; i < spec->nfds; i++)
		if (dup2(tmp[i], spec->fds[i].to) < 0)
			return -1;
	return 0;
}

/* Handlers are the parent's: a signal arriving before exec must not run
 * them in the child (exec resets them to the default anyway). */
static void default_handlers(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;

	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
		    old.sa_handler != SIG_IGN)
			sigaction(sig, &dfl, NULL);
}

static void __attribute__((noreturn)) become(const struct sibyl_run_spec *spec, char **env,
					     int errfd, const sigset_t *mask, pid_t parent)
{
	default_handlers();
	/* The parent may have died before prctl: then nobody kills us. */
	if (spec->die_with_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
		_exit(127);
	if (spec->own_group)
		setpgid(0, 0);
	if (spec->dir && chdir(spec->dir) < 0)
		fail_start(errfd, STEP_CHDIR);
	if (place_fds(spec, &errfd) < 0)
		fail_start(errfd, STEP_DUP2);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvpe(spec->argv[0], spec->argv, env);
	fail_start(errfd, STEP_EXEC);
}

static void not_started(struct sibyl_run_status *st, int step, int err)
{
	*st = (struct sibyl_run_status){ SIBYL_RUN_NOT_STARTED, err, steps[step] };
}

/* The child's report: 0 when it became the program. */
static int start_result(int fd, struct sibyl_run_status *st)
{
	struct start_failure f;
	ssize_t n;

	while ((n = read(fd, &f, sizeof(f))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(f))
		return 0;
	if (f.step < 0 || f.step > STEP_EXEC)
		f.step = STEP_EXEC;
	not_started(st, f.step, f.err);
	return -1;
}

int sibyl_run_start(const struct sibyl_run_spec *spec, struct sibyl_child *c,
		    struct sibyl_run_status *st)
{
	int errpipe[2];
	sigset_t all, mask;

	pid_t self = getpid();

	*c = (struct sibyl_child){ .pid = -1, .pidfd = -1, .own_group = spec->own_group };
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return not_started(st, STEP_FORK, errno), -1;
	char **env = child_environment(spec);

	fflush(NULL);	/* or the child's exit would write our buffers twice */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	c->pid = fork();
	if (c->pid == 0)
		become(spec, env, errpipe[1], &mask, self);
	int fork_errno = errno;

	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	free(env);
	close(errpipe[1]);
	if (c->pid < 0) {
		close(errpipe[0]);
		return not_started(st, STEP_FORK, fork_errno), -1;
	}
	if (spec->own_group)
		setpgid(c->pid, c->pid);	/* also here: the deadline may come first */
	int r = start_result(errpipe[0], st);

	close(errpipe[0]);
	if (r < 0) {
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
		return -1;
	}
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if ((c->tracked = spec->die_with_parent))
		sibyl_cleanup_child(c->pid, c->own_group, true);
	return 0;
}

static void decode(int wstatus, struct sibyl_run_status *st)
{
	if (WIFSIGNALED(wstatus))
		*st = (struct sibyl_run_status){ SIBYL_RUN_CRASHED, WTERMSIG(wstatus), NULL };
	else if (WEXITSTATUS(wstatus))
		*st = (struct sibyl_run_status){ SIBYL_RUN_FAILED, WEXITSTATUS(wstatus), NULL };
	else
		*st = (struct sibyl_run_status){ SIBYL_RUN_OK, 0, NULL };
}

static void untrack(struct sibyl_child *c)
{
	if (c->tracked)
		sibyl_cleanup_child(c->pid, c->own_group, false);
	c->tracked = false;
}

static void reap(struct sibyl_child *c, int flags, struct sibyl_run_status *st, pid_t *got)
{
	int wstatus = 0;

	while ((*got = waitpid(c->pid, &wstatus, flags)) < 0 && errno == EINTR)
		;
	if (*got == c->pid) {
		decode(wstatus, st);
		untrack(c);
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pid = c->pidfd = -1;
	} else if (*got < 0) {	/* not our child any more (SIGCHLD ignored) */
		*st = (struct sibyl_run_status){ SIBYL_RUN_OK, 0, NULL };
		untrack(c);
		c->pid = -1;
	}
}

/* Until the child ended or the deadline: true when it ended (reaped). */
static bool reaped_by(struct sibyl_child *c, uint64_t deadline_ns, struct sibyl_run_status *st)
{
	pid_t got;

	for (;;) {
		reap(c, WNOHANG, st, &got);
		if (got != 0)
			return true;
		uint64_t now = sibyl_mono_ns();

		if (now >= deadline_ns)
			return false;
		int ms = (int)((deadline_ns - now + 999999) / 1000000);

		if (c->pidfd >= 0) {
			struct pollfd p = { c->pidfd, POLLIN, 0 };

			poll(&p, 1, ms);	/* EINTR: look again */
		} else {
			struct timespec tick = { 0, 10000000 };	/* no pidfd: look every 10 ms */

			nanosleep(&tick, NULL);
		}
	}
}

void sibyl_run_kill(struct sibyl_child *c, struct sibyl_run_status *st)
{
	pid_t target = c->own_group ? -c->pid : c->pid, pid = c->pid;

	if (pid <= 0)
		return;
	kill(target, SIGTERM);
	bool ended = reaped_by(c, sibyl_mono_ns() + (uint64_t)(SIBYL_RUN_GRACE_S * 1e9), st);

	if (!ended || c->own_group)
		kill(ended ? -pid : target, SIGKILL);	/* the group may outlive its leader */
	if (!ended) {
		pid_t got;

		reap(c, 0, st, &got);
	}
	int sig = st->outcome == SIBYL_RUN_CRASHED ? st->code : SIGKILL;

	*st = (struct sibyl_run_status){ SIBYL_RUN_TIMED_OUT, sig, NULL };
}

void sibyl_run_kill_now(pid_t pid)
{
	if (pid && kill(pid, SIGKILL) == 0)
		waitpid(pid < 0 ? -pid : pid, NULL, 0);
}

void sibyl_run_wait(struct sibyl_child *c, uint64_t deadline_ns, struct sibyl_run_status *st)
{
	pid_t got;

	if (c->pid <= 0)
		return;
	if (!deadline_ns)
		reap(c, 0, st, &got);
	else if (!reaped_by(c, deadline_ns, st))
		sibyl_run_kill(c, st);
}

static uint64_t deadline_of(double timeout_s)
{
	return timeout_s > 0 ? sibyl_mono_ns() + (uint64_t)(timeout_s * 1e9) : 0;
}

void sibyl_run(const struct sibyl_run_spec *spec, struct sibyl_run_status *st)
{
	struct sibyl_child c;
	uint64_t deadline = deadline_of(spec->timeout_s);

	if (sibyl_run_start(spec, &c, st) == 0)
		sibyl_run_wait(&c, deadline, st);
}

/* Read fd until EOF, keeping max bytes: false when the deadline came first. */
static bool collect(int fd, uint64_t deadline_ns, size_t max, char **out, size_t *len)
{
	size_t cap = 4096;
	char chunk[4096], *buf = sibyl_xmalloc(cap);
	bool ended = false;

	*len = 0;
	while (!ended) {
		uint64_t now = sibyl_mono_ns();

		if (deadline_ns && now >= deadline_ns)
			break;
		struct pollfd p = { fd, POLLIN, 0 };
		int ms = deadline_ns ? (int)((deadline_ns - now + 999999) / 1000000) : -1;

		if (poll(&p, 1, ms) <= 0)
			continue;	/* EINTR, or the deadline checked above */
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		ended = n <= 0;
		size_t keep = n > 0 && *len < max ? (size_t)n < max - *len ? (size_t)n : max - *len : 0;

		if (*len + keep + 1 > cap)
			buf = sibyl_xreallocarray(buf, cap = 2 * (*len + keep + 1), 1);
		memcpy(buf + *len, chunk, keep);
		*len += keep;
	}
	buf[*len] = '\0';
	*out = buf;
	return ended;
}

void sibyl_run_capture(const struct sibyl_run_spec *spec, int child_fd, size_t max,
		       char **out, size_t *len, struct sibyl_run_status *st)
{
	struct sibyl_run_fd fds[spec->nfds + 1];
	struct sibyl_run_spec with_pipe = *spec;
	uint64_t deadline = deadline_of(spec->timeout_s);
	struct sibyl_child c;
	int p[2];

	*out = sibyl_xstrdup("");
	*len = 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return not_started(st, STEP_FORK, errno);
	if (spec->nfds)
		memcpy(fds, spec->fds, spec->nfds * sizeof(*fds));
	fds[spec->nfds] = (struct sibyl_run_fd){ p[1], child_fd };
	with_pipe.fds = fds;
	with_pipe.nfds = spec->nfds + 1;
	int r = sibyl_run_start(&with_pipe, &c, st);

	close(p[1]);
	if (r == 0) {
		free(*out);
		if (collect(p[0], deadline, max, out, len))
			sibyl_run_wait(&c, deadline, st);
		else
			sibyl_run_kill(&c, st);
	}
	close(p[0]);
}

const char *sibyl_run_describe(const struct sibyl_run_status *st, char *buf, size_t len)
{
	const char *sig = sigabbrev_np(st->code);

	switch (st->outcome) {
	case SIBYL_RUN_OK:
		snprintf(buf, len, "exited normally");
		break;
	case SIBYL_RUN_FAILED:
		snprintf(buf, len, "exited with status %d", st->code);
		break;
	case SIBYL_RUN_CRASHED:
	case SIBYL_RUN_TIMED_OUT:
		snprintf(buf, len, "%skilled by SIG%s", st->outcome == SIBYL_RUN_TIMED_OUT ?
			 "timed out (" : "", sig ? sig : "?");
		if (st->outcome == SIBYL_RUN_TIMED_OUT && strlen(buf) + 1 < len)
			strcat(buf, ")");
		break;
	case SIBYL_RUN_NOT_STARTED:
		snprintf(buf, len, "%s: %s", st->step && !strcmp(st->step, "chdir") ?
			 "cannot enter its directory" : "cannot run", strerror(st->code));
		break;
	}
	return buf;
}

/* The helpers sit beside sibyl in a build tree and in
 * PREFIX/libexec/sibyl once installed (bin/ keeps only sibyl). */
char *sibyl_run_helper_path(const char *program, const char *env_var)
{
	const char *env = env_var ? getenv(env_var) : NULL;
	char *dir, *path, *libexec;

	if (env && *env)
		return sibyl_xstrdup(env);
	if (!(dir = sibyl_self_dir()))
		return sibyl_xstrdup(program);
	path = sibyl_path_join(dir, program);
	if (access(path, X_OK) != 0) {
		libexec = sibyl_path_join(dir, "../libexec/sibyl");
		free(path);
		path = sibyl_path_join(libexec, program);
		free(libexec);
	}
	free(dir);
	return path;
}
