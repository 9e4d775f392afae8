/*
 * Ring mode: when `sibyl trace` drains the trace (drain.ctl exists), each
 * thread records into a fixed ring <pid>.<gen>-<tid>.ring (in drain.ctl's
 * ring_dir, normally a private directory in /dev/shm) that is reused
 * over and over.  Providing fresh page-cache pages costs this VM ~2-5 us
 * per 4 KiB, i.e. more than the whole budget of a call when every record
 * lands on a new page; a reused ring takes no faults after its first lap,
 * and the copy into the .events file happens in `sibyl trace`, on another
 * core.  The ring is MAP_SHARED, so a crash still loses nothing: the
 * drainer copies what the ring holds after the program died.
 *
 * Producer protocol (one producer per ring): records are stored, then
 * events.committed is bumped with release order (wrap_rt.h; a signal
 * handler on the same thread never interleaves); the drainer
 * reads committed, copies, then advances tail.  The producer hands the
 * fast path at most a quarter of the ring at a time, so it comes here
 * often enough to wake the drainer when the ring is half full.
 */
#define _GNU_SOURCE
#include "rt/internal.h"
#include "core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>	/* renameat2 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A producer whose ring stays full this long without the drainer freeing
 * any room (a stopped or hung `sibyl trace`) drops records instead of
 * blocking the program; it records again as soon as there is room. */
#define STALL_NS 10000000000ull
#define POLL_NS 20000
/* First-lap grants start small so that a thread's first call does not
 * provision the whole ring. */
#define FIRST_GRANT 1024

/* Map drain.ctl if `sibyl trace` left one; otherwise stay in direct mode. */
void rt_drain_attach(void)
{
	char path[PATH_MAX];
	size_t n = rt_strlcpy(path, rt_proc.dir, sizeof(path));

	rt_append(path, rt_append(path, n, sizeof(path), "/"), sizeof(path), SIBYL_DRAIN_FILE);
	rt_proc.drain = NULL;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	struct sibyl_drain_control *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
					     MAP_SHARED, fd, 0);
	close(fd);
	if (c == MAP_FAILED)
		return;
	if (memcmp(c->magic, SIBYL_DRAIN_MAGIC, 8) || c->version != SIBYL_TRACE_VERSION ||
	    c->ring_bytes < 4096 || c->ring_bytes % 4096 || c->ring_dir[0] != '/' ||
	    !memchr(c->ring_dir, '\0', sizeof(c->ring_dir))) {
		rt_debug("drain.ctl is not valid; writing the trace directly");
		munmap(c, sizeof(*c));
		return;
	}
	if (kill((pid_t)c->drainer_pid, 0) != 0 && errno == ESRCH) {
		rt_debug("drain.ctl left by a sibyl trace that is gone; writing the trace directly");
		munmap(c, sizeof(*c));
		return;
	}
	rt_proc.drain = c;
}

static struct sibyl_ring_header *ring_of(struct sibyl_rt_thread *t)
{
	return t->window;
}

/*
 * Have the kernel provide the header page before anything is stored into
 * it (a full /dev/shm then fails here instead of raising SIGBUS).  Before
 * Linux 5.14 grants cannot be provided one by one (see provision()), so
 * the whole ring is allocated now.
 */
static int provide_header(int fd, void *p, uint64_t len)
{
	if (madvise(p, SIBYL_RING_DATA_OFFSET, MADV_POPULATE_WRITE) == 0)
		return 0;
	return errno == EINVAL && fallocate(fd, 0, 0, (off_t)len) == 0 ? 0 : -1;
}

/*
 * Take the spare ring `sibyl trace` keeps ready (SIBYL_RING_SPARE: its
 * pages are provided, so this thread's first lap costs page-table entries
 * only), else create the ring.  Neither may replace an earlier thread's
 * ring with the same tid: RENAME_NOREPLACE, O_EXCL.
 */
static int ring_file(const char *path)
{
	char spare[PATH_MAX];
	size_t n = rt_strlcpy(spare, rt_proc.drain->ring_dir, sizeof(spare));

	rt_append(spare, rt_append(spare, n, sizeof(spare), "/"), sizeof(spare), SIBYL_RING_SPARE);
	if (renameat2(AT_FDCWD, spare, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
		int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0)
			return fd;
	}
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, rt_proc.file_mode);
}

int rt_ring_open(struct sibyl_rt_thread *t)
{
	char path[PATH_MAX];
	pid_t tid = rt_gettid();
	uint64_t len = SIBYL_RING_DATA_OFFSET + rt_proc.drain->ring_bytes;

	rt_thread_path(path, sizeof(path), rt_proc.drain->ring_dir, tid, ".ring");
	int fd = ring_file(path);

	if (fd < 0)
		return -1;
	void *p = MAP_FAILED;

	/* Pages are provisioned grant by grant on the first lap (see
	 * provision()): a short-lived thread pays only for what it uses. */
	if (ftruncate(fd, (off_t)len) == 0)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED && provide_header(fd, p, len) != 0) {
		munmap(p, len);
		p = MAP_FAILED;
	}
	close(fd);
	if (p == MAP_FAILED) {
		unlink(path);
		return -1;
	}
	struct sibyl_ring_header *h = p;

	rt_events_header_init(&h->events, tid);
	h->capacity = rt_proc.drain->ring_bytes / SIBYL_RECORD_SIZE;
	__atomic_store_n((uint64_t *)h->magic, *(const uint64_t *)SIBYL_RING_MAGIC, __ATOMIC_RELEASE);
	t->window = p;
	t->window_bytes = len;
	t->committed = &h->events.committed;
	t->granted_end = 0;
	t->cur = t->limit = NULL;
	rt_watch_thread_exit(t);
	return 0;
}

static void ring_doorbell(void)
{
	uint32_t *bell = &rt_proc.drain->doorbell;

	__atomic_fetch_add(bell, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, bell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Nobody will drain this ring any more: sibyl trace finished or died,
 * or gave up on the ring.  The death check is a system call, made only
 * while waiting. */
static bool drainer_gone(const struct sibyl_ring_header *h, bool check_pid)
{
	const struct sibyl_drain_control *c = rt_proc.drain;

	if (__atomic_load_n(&c->finished, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&h->abandoned, __ATOMIC_ACQUIRE))
		return true;
	return check_pid && kill((pid_t)c->drainer_pid, 0) != 0 && errno == ESRCH;
}

/* Free slots.  A full ring waits for the drainer, up to STALL_NS without
 * progress; a stalled thread only looks (no waiting) until room appears. */
static uint64_t wait_for_room(struct sibyl_rt_thread *t, struct sibyl_ring_header *h,
			      uint64_t head)
{
	uint64_t cap = h->capacity, since = 0, last_tail = 0;

	for (;;) {
		uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
		uint64_t used = head - tail;

		if (used > cap || drainer_gone(h, false))
			return 0;	/* nonsense from the drainer, or no drainer */
		if (used >= cap / 4)
			ring_doorbell();
		if (used < cap) {
			t->stalled = 0;
			return cap - used;
		}
		if (t->stalled)
			return 0;
		uint64_t now = sibyl_mono_ns();

		if (!since || tail != last_tail) {
			since = now;
			last_tail = tail;
		} else if (now - since >= STALL_NS || drainer_gone(h, true)) {
			t->stalled = 1;
			return 0;
		}
		struct timespec ts = { 0, POLL_NS };

		nanosleep(&ts, NULL);
	}
}

/* On the first lap, make the kernel provide the granted pages now: a
 * full /dev/shm then fails here, not with SIGBUS on a record store. */
static int provision(void *p, uint64_t bytes)
{
	if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0 || errno == EINVAL)
		return 0;	/* EINVAL: before 5.14, provide_header() allocated it all */
	return -1;
}

struct sibyl_call_record *rt_ring_refill(struct sibyl_rt_thread *t, bool count_drop)
{
	struct sibyl_ring_header *h = ring_of(t);
	uint64_t head = t->granted_end, cap = h->capacity;
	uint64_t room = wait_for_room(t, h, head);
	uint64_t slot = head % cap, grant = cap / 4;

	if (head < cap)
		grant = head < FIRST_GRANT ? FIRST_GRANT : head;
	if (grant > cap / 4)
		grant = cap / 4;
	if (grant == 0)
		grant = 1;
	if (grant > room)
		grant = room;
	if (grant > cap - slot)
		grant = cap - slot;
	struct sibyl_call_record *data =
		(struct sibyl_call_record *)((char *)h + SIBYL_RING_DATA_OFFSET);

	if (room && head < cap && provision(data + slot, grant * SIBYL_RECORD_SIZE) != 0)
		room = 0;
	if (!room) {
		if (count_drop)
			__atomic_fetch_add(&h->events.dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	t->cur = data + slot;
	t->limit = t->cur + grant;
	t->granted_end = head + grant;
	return t->cur;
}

/* The thread is exiting: tell the drainer nothing more will come. */
void rt_ring_close(struct sibyl_rt_thread *t)
{
	__atomic_store_n(&ring_of(t)->closed, 1, __ATOMIC_RELEASE);
	ring_doorbell();
}
