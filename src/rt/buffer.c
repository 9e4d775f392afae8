/*
 * Per-thread event buffers.  Each thread writes fixed-size records into
 * a window of its own file <pid>.<gen>-<tid>.events, mapped MAP_SHARED:
 * the records live in the page cache as soon as they are stored, so a
 * crash of the traced program loses nothing already recorded.  When the
 * window is full the file grows and the next window is mapped (windows
 * double up to SIBYL_BUFFER_KB).  No file descriptor stays open: the
 * program may close or reuse any descriptor it likes.
 */
#define _GNU_SOURCE
#include "rt/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__thread struct sibyl_rt_thread sibyl_rt_self_state
	__attribute__((tls_model("initial-exec"))) RT_EXPORT;


#define HEADER_MAP_BYTES 4096

/* "<dir>/<pid>.<gen>-<tid><suffix>" */
size_t rt_thread_path(char *out, size_t size, const char *dir, pid_t tid, const char *suffix)
{
	char num[24];
	size_t n = rt_image_path(out, size, dir, rt_proc.gen);

	n = rt_append(out, n, size, "-");
	rt_u64_dec(num, (uint64_t)tid);
	n = rt_append(out, n, size, num);
	return rt_append(out, n, size, suffix);
}

void rt_events_header_init(struct sibyl_events_header *h, pid_t tid)
{
	h->version = SIBYL_TRACE_VERSION;
	h->min_version = SIBYL_TRACE_MIN_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = SIBYL_RECORD_SIZE;
	h->endian = SIBYL_TRACE_ENDIAN_MARK;
	h->pid = (uint32_t)rt_proc.pid;
	h->gen = rt_proc.gen;
	h->tid = (uint32_t)tid;
	h->start_tsc = __rdtsc();
	memcpy(h->magic, SIBYL_EVENTS_MAGIC, 8);
}

/* Map [offset, offset+len) of the thread's file writable and prefaulted,
 * so the hot path never takes a page fault; NULL when the file system
 * cannot provide the pages (full), instead of SIGBUS on a later store. */
static void *map_window(int fd, uint64_t offset, uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return p;
	if (errno == EINVAL && fallocate(fd, 0, (off_t)offset, (off_t)len) == 0) {
		/* Before Linux 5.14: the blocks exist now, touching is safe. */
		for (uint64_t i = 0; i < len; i += 4096)
			((volatile char *)p)[i] = 0;
		return p;
	}
	munmap(p, len);
	return NULL;
}

static struct sibyl_events_header *header_of(struct sibyl_rt_thread *t)
{
	return (struct sibyl_events_header *)((char *)t->committed -
					      offsetof(struct sibyl_events_header, committed));
}

/*
 * At thread exit, unmap the thread's windows: a program that creates
 * thousands of short threads would otherwise run out of mappings.  The
 * records stay in the file.  Later calls on this thread (from other
 * destructors) pass through untraced rather than reopen the file.
 */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *arg)
{
	struct sibyl_rt_thread *t = arg;

	rt_close_open_calls(t);	/* pthread_exit inside a wrapped call */
	rt_thread_finish(t);
	rt_thread_forget(t);
	t->state = THREAD_DISABLED;
}

static void make_exit_key(void)
{
	if (pthread_key_create(&exit_key, on_thread_exit) != 0)
		exit_key = (pthread_key_t)-1;
}

void rt_watch_thread_exit(struct sibyl_rt_thread *t)
{
	pthread_once(&exit_key_once, make_exit_key);
	if (exit_key != (pthread_key_t)-1)
		pthread_setspecific(exit_key, t);
}

static int open_thread_file(struct sibyl_rt_thread *t)
{
	char path[PATH_MAX];
	pid_t tid = rt_gettid();

	rt_thread_path(path, sizeof(path), rt_proc.dir, tid, ".events");
	/* O_EXCL: never truncate the records of an earlier thread that had
	 * the same tid (tids can be reused within a process). */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, rt_proc.file_mode);

	if (fd < 0)
		return -1;
	uint64_t size = rt_proc.first_window;
	struct sibyl_events_header *h = NULL;
	void *window = NULL;

	/* The header page is provided with the first window, before any
	 * store into it. */
	if (ftruncate(fd, (off_t)size) == 0 && (window = map_window(fd, 0, size)))
		h = mmap(NULL, HEADER_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (!h || h == MAP_FAILED) {
		if (window)
			munmap(window, size);
		/* An .events file without a header would make the trace unreadable. */
		unlink(path);
		return -1;
	}
	rt_events_header_init(h, tid);
	t->committed = &h->committed;
	t->window = window;
	t->window_bytes = size;
	t->file_bytes = size;
	t->cur = (struct sibyl_call_record *)((char *)window + sizeof(*h));
	t->limit = (struct sibyl_call_record *)((char *)window + size);
	rt_watch_thread_exit(t);
	return 0;
}

/* Grow the file and move to a fresh window after the current one. */
static int grow_thread_file(struct sibyl_rt_thread *t)
{
	char path[PATH_MAX];
	uint64_t len = t->window_bytes * 2;

	if (len > rt_proc.max_window)
		len = rt_proc.max_window;
	struct sibyl_events_header *h = header_of(t);

	rt_thread_path(path, sizeof(path), rt_proc.dir, (pid_t)h->tid, ".events");
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	void *window = NULL;

	if (ftruncate(fd, (off_t)(t->file_bytes + len)) == 0)
		window = map_window(fd, t->file_bytes, len);
	close(fd);
	if (!window)
		return -1;
	munmap(t->window, t->window_bytes);
	t->window = window;
	t->window_bytes = len;
	t->file_bytes += len;
	t->cur = window;
	t->limit = (struct sibyl_call_record *)((char *)window + len);
	return 0;
}

/* A thread without a buffer, and its calls: counted in the .proc header
 * (which exists while tracing is enabled), so that report can say what
 * the trace is missing. */
static void count_lost(uint32_t threads, uint64_t calls)
{
	__atomic_fetch_add(&rt_proc.proc->lost_threads, threads, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rt_proc.proc->lost_calls, calls, __ATOMIC_RELAXED);
}

/*
 * A thread's first call: a ring when `sibyl trace` drains the trace;
 * else, or when the ring cannot be had (/dev/shm full, address space or
 * descriptors exhausted), the thread's own .events file.  When neither
 * can be created the thread is lost: counted, with every call it makes.
 */
static struct sibyl_call_record *open_buffer(struct sibyl_rt_thread *t, bool count_drop)
{
	if (rt_proc.drain && rt_ring_open(t) == 0) {
		t->state = THREAD_RING;
		return rt_ring_refill(t, count_drop);
	}
	if (open_thread_file(t) == 0) {
		t->state = THREAD_OPEN;
		return t->cur;
	}
	rt_debug("cannot create a thread buffer; this thread's calls are counted as lost");
	t->state = THREAD_LOST;
	count_lost(1, count_drop);
	return NULL;
}

/* count_drop: a record is waiting for this slot (not a refill ahead of
 * time), so count it in `dropped` (or as lost) if there is no room. */
struct sibyl_call_record *rt_refill(struct sibyl_rt_thread *t, bool count_drop)
{
	int saved_errno = errno;
	struct sibyl_call_record *r = NULL;

	if (t->in_runtime || t->state == THREAD_DISABLED || !rt_proc.enabled)
		return NULL;
	if (t->state == THREAD_LOST) {
		count_lost(0, count_drop);
		return NULL;
	}
	t->in_runtime = 1;
	if (t->state == THREAD_RING) {
		r = rt_ring_refill(t, count_drop);
	} else if (t->state == THREAD_FRESH) {
		r = open_buffer(t, count_drop);
	} else if (grow_thread_file(t) == 0) {
		r = t->cur;
	} else if (count_drop) {
		/* Keep the old window full and count what is lost from now on. */
		__atomic_fetch_add(&header_of(t)->dropped, 1, __ATOMIC_RELAXED);
	}
	t->in_runtime = 0;
	errno = saved_errno;
	return r;
}

RT_EXPORT struct sibyl_call_record *sibyl_rt_refill(struct sibyl_rt_thread *t)
{
	return rt_refill(t, true);
}

/* The thread records nothing more: from here on its calls (signal
 * handlers, later destructors) pass through untraced, because once its
 * ring is closed the drainer may retire it. */
void rt_thread_finish(struct sibyl_rt_thread *t)
{
	t->in_runtime = 1;
	if (t->state == THREAD_RING)
		rt_ring_close(t);
}

/* Forget a thread's buffer without touching the file (used after fork,
 * where the mappings still point at the parent's files). */
void rt_thread_forget(struct sibyl_rt_thread *t)
{
	if (t->state == THREAD_OPEN) {
		munmap(t->window, t->window_bytes);
		munmap(header_of(t), HEADER_MAP_BYTES);
	} else if (t->state == THREAD_RING) {
		munmap(t->window, t->window_bytes);
	}
	t->cur = t->limit = NULL;
	t->committed = NULL;
	t->window = NULL;
	t->window_bytes = t->file_bytes = t->granted_end = 0;
	t->stalled = 0;
	t->state = THREAD_FRESH;
	rt_counters_forget();
}
