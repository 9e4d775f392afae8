/*
 * How each process image ended, for report's process table
 * (docs/runtime.md, "How a process ended").  The image itself records the
 * status it passes to exit() (an on_exit handler) or to _exit()/_Exit()
 * (interposed: the only way to see them); a signal that kills it can only
 * be seen by its parent, so the wait functions are interposed too and the
 * parent writes what it reaped into the child's .proc file.  Exec needs
 * nothing: the next image of the same pid says so.
 *
 * Every interposer calls the next definition (glibc's) found when the
 * runtime started, and changes nothing the program sees: arguments,
 * results and errno pass through untouched.
 */
#define _GNU_SOURCE
#include "rt/internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static struct {
	void (*exit_)(int);
	void (*Exit_)(int);
	pid_t (*wait)(int *);
	pid_t (*waitpid)(pid_t, int *, int);
	pid_t (*wait4)(pid_t, int *, int, struct rusage *);
	int (*waitid)(idtype_t, id_t, siginfo_t *, int);
} next;

/* The status this image ends with, when it is its own process (not a
 * vfork child sharing its memory). */
static void record_own_exit(int status)
{
	struct sibyl_proc_header *h = rt_proc.proc;

	if (!h || rt_proc.pid != getpid())
		return;
	uint32_t code = ((uint32_t)status & 0xff) << SIBYL_PROC_EXIT_SHIFT;

	__atomic_store_n(&h->flags, (h->flags & ~SIBYL_PROC_EXIT_MASK) | code | SIBYL_PROC_EXIT_CODE,
			 __ATOMIC_RELEASE);
}

static void on_exit_status(int status, void *arg)
{
	(void)arg;
	record_own_exit(status);
}

/* Not resolvable (no next definition): leave as the kernel would. */
static _Noreturn void exit_group_now(int status)
{
	for (;;)
		syscall(SYS_exit_group, status);
}

/* _exit runs no destructor: close the thread's calls and stamp the end
 * time here.  Not in a vfork child: the memory, this thread's buffer
 * included, is its parent's. */
static void record_own_exit_now(int status)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();

	if (!rt_proc.proc || rt_proc.pid != getpid())
		return;
	rt_close_open_calls(t);
	rt_thread_finish(t);
	rt_process_finish();
	record_own_exit(status);
}

RT_EXPORT void _exit(int status)
{
	record_own_exit_now(status);
	if (next.exit_)
		next.exit_(status);
	exit_group_now(status);
}

RT_EXPORT void _Exit(int status)
{
	record_own_exit_now(status);
	if (next.Exit_)
		next.Exit_(status);
	exit_group_now(status);
}

/* The last image of `pid` in this trace, opened for writing; -1 if none. */
static int open_last_image(pid_t pid)
{
	char path[PATH_MAX];
	int fd = -1;

	for (unsigned g = 0; g < 4096; g++) {
		size_t n = rt_pid_image_path(path, sizeof(path), rt_proc.dir, pid, g);

		rt_append(path, n, sizeof(path), ".proc");
		int next_fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

		if (next_fd < 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = next_fd;
	}
	return fd;
}

/* The parent reaped `pid` with wait status `status`: write it into the
 * child's last image, unless an earlier reap of the same pid did. */
static void record_reaped(pid_t pid, int status)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	const off_t at = offsetof(struct sibyl_proc_header, flags);
	int saved_errno = errno;
	uint32_t flags;

	if (!rt_proc.enabled || t->in_runtime || pid <= 0 ||
	    !(WIFEXITED(status) || WIFSIGNALED(status)))
		return;
	t->in_runtime = 1;
	int fd = open_last_image(pid);

	if (fd >= 0 && pread(fd, &flags, sizeof(flags), at) == (ssize_t)sizeof(flags) &&
	    !(flags & SIBYL_PROC_WAITED)) {
		flags |= SIBYL_PROC_WAITED | ((uint32_t)status & 0xffff) << SIBYL_PROC_WAIT_SHIFT;
		if (pwrite(fd, &flags, sizeof(flags), at) != (ssize_t)sizeof(flags))
			rt_debug("cannot record a child's wait status");
	}
	if (fd >= 0)
		close(fd);
	t->in_runtime = 0;
	errno = saved_errno;
}

RT_EXPORT pid_t wait(int *wstatus)
{
	int status;
	pid_t pid = next.wait ? next.wait(&status) : wait4(-1, &status, 0, NULL);

	if (pid > 0) {
		record_reaped(pid, status);
		if (wstatus)
			*wstatus = status;
	}
	return pid;
}

RT_EXPORT pid_t waitpid(pid_t which, int *wstatus, int options)
{
	int status;
	pid_t pid = next.waitpid ? next.waitpid(which, &status, options)
				 : wait4(which, &status, options, NULL);

	if (pid > 0) {
		record_reaped(pid, status);
		if (wstatus)
			*wstatus = status;
	}
	return pid;
}

RT_EXPORT pid_t wait3(int *wstatus, int options, struct rusage *usage)
{
	return wait4(-1, wstatus, options, usage);
}

RT_EXPORT pid_t wait4(pid_t which, int *wstatus, int options, struct rusage *usage)
{
	int status;
	pid_t pid = next.wait4 ? next.wait4(which, &status, options, usage)
			       : (pid_t)syscall(SYS_wait4, which, &status, options, usage);

	if (pid > 0) {
		record_reaped(pid, status);
		if (wstatus)
			*wstatus = status;
	}
	return pid;
}

/* waitid reports a siginfo; the wait status it stands for. */
static int status_of(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return (si->si_status & 0xff) << 8;
	if (si->si_code == CLD_KILLED)
		return si->si_status & 0x7f;
	if (si->si_code == CLD_DUMPED)
		return (si->si_status & 0x7f) | 0x80;
	return 0x7f;	/* stopped or continued: not an end */
}

RT_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int r = next.waitid ? next.waitid(idtype, id, info, options)
			    : (int)syscall(SYS_waitid, idtype, id, info, options, NULL);

	if (r == 0 && info && info->si_pid > 0)
		record_reaped(info->si_pid, status_of(info));
	return r;
}

/* At start-up, with the thread guard held (dlsym may allocate). */
void rt_exit_status_init(void)
{
	next.exit_ = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	next.Exit_ = (void (*)(int))dlsym(RTLD_NEXT, "_Exit");
	next.wait = (pid_t (*)(int *))dlsym(RTLD_NEXT, "wait");
	next.waitpid = (pid_t (*)(pid_t, int *, int))dlsym(RTLD_NEXT, "waitpid");
	next.wait4 = (pid_t (*)(pid_t, int *, int, struct rusage *))dlsym(RTLD_NEXT, "wait4");
	next.waitid = (int (*)(idtype_t, id_t, siginfo_t *, int))dlsym(RTLD_NEXT, "waitid");
	if (rt_proc.enabled)
		on_exit(on_exit_status, NULL);
}
