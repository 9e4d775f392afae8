/* Leave nothing behind when a signal ends the command (core/cleanup.h). */
#define _GNU_SOURCE
#include "core/cleanup.h"
#include "core/fs.h"
#include "core/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MAX_PATHS = 16, MAX_DEPTH = 8 };
static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
/* Paths (const char *) and pids (negative: a process group), as integers
 * so that one function tracks all three. */
static uintptr_t files[MAX_PATHS], dirs[MAX_PATHS], children[MAX_PATHS];
static pid_t owner;			/* a forked child must not clean ours */

/* Everything below `fd` (a directory), with openat/getdents64/unlinkat:
 * opendir and readdir allocate, which a signal handler must not. */
static void empty_dir(int fd, int depth);

/* One entry of the directory fd: true when it is gone. */
static bool remove_entry(int fd, const char *name, int depth)
{
	if (unlinkat(fd, name, 0) == 0)
		return true;
	if (errno != EISDIR || depth >= MAX_DEPTH)
		return false;
	int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sub >= 0) {
		empty_dir(sub, depth + 1);
		close(sub);
	}
	return unlinkat(fd, name, AT_REMOVEDIR) == 0;
}

static void empty_dir(int fd, int depth)
{
	char buf[4096];
	long n;
	bool removed = true;

	/* Removing entries while reading them may skip some: read again
	 * from the start until a pass removes nothing. */
	while (removed) {
		removed = false;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				struct { uint64_t ino; int64_t off; unsigned short len;
					 unsigned char type; char name[]; } *e = (void *)(buf + off);

				off += e->len;
				if (strcmp(e->name, ".") && strcmp(e->name, ".."))
					removed |= remove_entry(fd, e->name, depth);
			}
	}
}

static void remove_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		empty_dir(fd, 0);
		close(fd);
	}
	rmdir(path);
}

static void on_signal(int sig)
{
	int saved = errno;

	if (getpid() == owner) {
		for (int i = 0; i < MAX_PATHS; i++)
			sibyl_run_kill_now((pid_t)(intptr_t)__atomic_load_n(&children[i],
									     __ATOMIC_ACQUIRE));
		for (int i = 0; i < MAX_PATHS; i++) {
			const char *f = (const char *)__atomic_load_n(&files[i], __ATOMIC_ACQUIRE);
			const char *d = (const char *)__atomic_load_n(&dirs[i], __ATOMIC_ACQUIRE);

			if (f)
				unlink(f);
			if (d)
				remove_dir(d);
		}
	}
	/* Die of the signal as if we had never caught it. */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void catch_signals(void)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old, sa = { .sa_handler = on_signal };

		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(signals[i], &sa, NULL);
	}
}

/* Replace `was` by `now` in a table, with the signals blocked. */
static void swap(uintptr_t *table, size_t n, uintptr_t was, uintptr_t now)
{
	sigset_t block, old;

	sigemptyset(&block);
	for (size_t s = 0; s < sizeof(signals) / sizeof(signals[0]); s++)
		sigaddset(&block, signals[s]);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	owner = getpid();
	for (size_t i = 0; i < n; i++)
		if (__atomic_load_n(&table[i], __ATOMIC_ACQUIRE) == was) {
			__atomic_store_n(&table[i], now, __ATOMIC_RELEASE);
			break;
		}
	if (now)
		catch_signals();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void track(uintptr_t *table, uintptr_t v, bool add)
{
	swap(table, MAX_PATHS, add ? 0 : v, add ? v : 0);
}

void sibyl_cleanup_file(const char *path, bool add)
{
	track(files, (uintptr_t)path, add);
}

void sibyl_cleanup_dir(const char *path, bool add)
{
	track(dirs, (uintptr_t)path, add);
}

void sibyl_cleanup_child(pid_t pid, bool group, bool add)
{
	track(children, (uintptr_t)(intptr_t)(group ? -pid : pid), add);
}

void sibyl_cleanup_remove_dir(const char *path)
{
	sibyl_remove_tree(path);
	sibyl_cleanup_dir(path, false);
}
