/*
 * Process lifetime: the constructor opens this image's <pid>.<gen>.proc
 * file, fork gives the child its own, exec starts over in the new image
 * (the environment carries SIBYL_TRACE_DIR and LD_PRELOAD along), and the
 * destructor stamps the end time.  A crash or _exit leaves the end unset
 * (exit_status.c records how it ended where it can); every record already
 * stored stays valid.
 */
#include "rt/internal.h"
#include "core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct rt_process rt_proc;

_Static_assert(SIBYL_TRACE_DIR_MAX + 64 <= sizeof(rt_proc.dir), "room for file names");

/* "<dir>/<pid>.<gen>": the common stem of an image's file names. */
size_t rt_pid_image_path(char *out, size_t size, const char *dir, pid_t pid, unsigned gen)
{
	char num[24];
	size_t n = rt_strlcpy(out, dir, size);

	n = rt_append(out, n, size, "/");
	rt_u64_dec(num, (uint64_t)pid);
	n = rt_append(out, n, size, num);
	n = rt_append(out, n, size, ".");
	rt_u64_dec(num, gen);
	return rt_append(out, n, size, num);
}

size_t rt_image_path(char *out, size_t size, const char *dir, unsigned gen)
{
	return rt_pid_image_path(out, size, dir, rt_proc.pid, gen);
}

static size_t proc_path(char *out, size_t size, unsigned gen)
{
	return rt_append(out, rt_image_path(out, size, rt_proc.dir, gen), size, ".proc");
}

/* Claim the first free generation number for this pid (one per exec). */
static int create_proc_file(unsigned *gen)
{
	char path[PATH_MAX];

	for (unsigned g = 0; g < 4096; g++) {
		proc_path(path, sizeof(path), g);
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, rt_proc.file_mode);

		if (fd >= 0) {
			*gen = g;
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static void read_exe(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", out, size - 1);

	out[n > 0 ? n : 0] = '\0';
}

/*
 * The header is written with pwrite, not stored through the mapping: a
 * store into a page the file system cannot provide (a full disk or
 * tmpfs) raises SIGBUS, while pwrite fails with ENOSPC.  Once written,
 * the page exists and later stores into it (end time, lost counts) are
 * safe.
 */
void rt_process_start(pid_t ppid)
{
	struct sibyl_proc_header h = {
		.version = SIBYL_TRACE_VERSION,
		.min_version = SIBYL_TRACE_MIN_VERSION,
		.header_size = sizeof(h),
		.endian = SIBYL_TRACE_ENDIAN_MARK,
	};
	void *map = MAP_FAILED;
	int fd;

	rt_proc.pid = getpid();
	rt_proc.proc = NULL;
	rt_proc.enabled = 0;
	fd = create_proc_file(&rt_proc.gen);
	if (fd < 0) {
		rt_debug("cannot create the process file; tracing disabled");
		return;
	}
	h.pid = (uint32_t)rt_proc.pid;
	h.ppid = (uint32_t)ppid;
	h.gen = rt_proc.gen;
	sibyl_clock_pair(&h.start_tsc, &h.start_ns);
	read_exe(h.exe, sizeof(h.exe));
	memcpy(h.magic, SIBYL_PROC_MAGIC, 8);
	if (pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h))
		map = mmap(NULL, sizeof(h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		char path[PATH_MAX];

		/* A file without its header would make the trace unreadable. */
		proc_path(path, sizeof(path), rt_proc.gen);
		unlink(path);
		rt_debug("cannot write the process file; tracing disabled");
		return;
	}
	rt_proc.proc = map;
	rt_proc.enabled = 1;
}

void rt_process_finish(void)
{
	struct sibyl_proc_header *h = rt_proc.proc;

	if (!h || rt_proc.pid != getpid())
		return;
	sibyl_clock_pair(&h->end_tsc, &h->end_ns);
	__atomic_store_n(&h->flags, h->flags | SIBYL_PROC_EXITED, __ATOMIC_RELEASE);
}

/* In the child of fork: the only thread left is the one that forked. */
static void after_fork_child(void)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	uint32_t saved = t->in_runtime;
	int saved_errno = errno;

	t->in_runtime = 1;
	pid_t parent = rt_proc.pid;

	rt_thread_forget(t);
	rt_inherit_open_calls(t);
	if (rt_proc.proc)
		munmap(rt_proc.proc, sizeof(*rt_proc.proc));
	if (rt_proc.enabled)
		rt_process_start(parent);
	t->in_runtime = saved;
	errno = saved_errno;
}

static uint64_t env_u64(const char *name, uint64_t fallback)
{
	const char *s = rt_getenv(name);
	char *end;

	if (!s || !*s)
		return fallback;
	unsigned long long v = strtoull(s, &end, 10);

	return *end ? fallback : v;
}

__attribute__((constructor(101))) static void rt_init(void)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	const char *dir = rt_getenv("SIBYL_TRACE_DIR");
	int saved_errno = errno;
	struct stat st;	/* we may run inside the program's dlopen */

	t->in_runtime = 1;
	rt_proc.debug = env_u64("SIBYL_DEBUG", 0) != 0;
	rt_proc.first_window = 64 * 1024;
	rt_proc.max_window = env_u64("SIBYL_BUFFER_KB", 8192) * 1024;
	if (rt_proc.max_window < rt_proc.first_window)
		rt_proc.max_window = rt_proc.first_window;
	if (dir && dir[0] == '/' && strlen(dir) < SIBYL_TRACE_DIR_MAX) {
		rt_strlcpy(rt_proc.dir, dir, sizeof(rt_proc.dir));
		/* Preloaded by hand: make the (last level of the) directory,
		 * private like `sibyl trace` makes it; files follow its mode. */
		mkdir(rt_proc.dir, 0700);
		rt_proc.file_mode = stat(rt_proc.dir, &st) == 0 ? st.st_mode & 0666 : 0600;
		rt_drain_attach();
		rt_process_start(getppid());
		pthread_atfork(NULL, NULL, after_fork_child);
	} else if (dir) {
		rt_debug("SIBYL_TRACE_DIR must be an absolute path shorter than 4032 bytes; "
			 "tracing disabled");
	}
	rt_exit_status_init();
	t->in_runtime = 0;
	/* Their constructors register their functions: not as the runtime. */
	rt_load_wrappers();
	errno = saved_errno;
}

__attribute__((destructor(101))) static void rt_fini(void)
{
	/* The exiting thread's ring is complete (thread-exit destructors do
	 * not run at exit()): let the drainer retire it now, with the calls
	 * exit() was called from. */
	rt_close_open_calls(sibyl_rt_self());
	rt_thread_finish(sibyl_rt_self());
	rt_process_finish();
}
