/*
 * Copies rings into .events files while the traced program runs.  One
 * background thread: it sleeps on the doorbell futex in drain.ctl (the
 * runtime rings it when a ring is half full or a thread exits) with a
 * short timeout, opens the rings inotify announced, and appends each
 * ring's new records to its .events file with pwrite.  The .events files
 * it writes are exactly what the runtime writes in direct mode, so the
 * reader does not know the difference.
 *
 * The ring's header is shared with a program that may scribble over its
 * own memory: the capacity and the tail are kept here and only ever
 * written there; a committed count that makes no sense stops the drain
 * of that ring with an error, never a read out of bounds.
 */
#include "trace/drain.h"
#include "trace/ring_spare.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/options.h"

#include <sibyl/trace_format.h>

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAKE_INTERVAL_NS 2000000	/* drain at least every 2 ms */
#define LIVENESS_PASSES 50		/* look for vanished images every ~100 ms */
/* Records copied before the ring's tail is advanced: a producer waiting
 * for room resumes after one chunk, not after the whole backlog. */
#define DRAIN_CHUNK 4096

struct ring {
	char *path;			/* .ring */
	struct sibyl_ring_header *h;	/* whole file mapped; NULL once retired */
	size_t map_bytes;
	uint64_t capacity;		/* private copies: never re-read from h */
	uint64_t tail;
	uint64_t header_written;	/* committed count in the .events header */
	int events_fd;
	uint32_t pid, gen;
	bool closed;			/* the thread said it is done */
	bool done;			/* drain once more, then retire */
};

struct sibyl_drain {
	char *dir;
	char *ring_dir;			/* where the runtime creates rings */
	mode_t file_mode;		/* the trace directory's rw bits */
	bool own_ring_dir;		/* made by us in /dev/shm: remove it */
	char *ctl_path;
	struct sibyl_drain_control *ctl;
	pthread_t thread;
	bool running;
	int stop;			/* read with __atomic */
	struct ring *rings;
	size_t nrings;
	int inotify_fd;			/* new files in ring_dir, or -1: rescan */
	struct sibyl_strlist pending;	/* announced rings whose header is not complete */
	int failed;
};

/* A private directory in /dev/shm for the rings, or the trace itself. */
static void choose_ring_dir(struct sibyl_drain *d)
{
	char tmpl[] = "/dev/shm/sibyl-XXXXXX";

	if (mkdtemp(tmpl)) {
		d->ring_dir = sibyl_xstrdup(tmpl);
		d->own_ring_dir = true;
	} else {
		d->ring_dir = sibyl_xstrdup(d->dir);
	}
}

/* A ring that cannot be drained: the others go on, and the trace is
 * reported incomplete at the end, so this is a notice, not a return; it
 * ends with strerror(errno) unless errno is 0. */
__attribute__((format(printf, 1, 2)))
static int ring_error(const char *fmt, ...)
{
	int e = errno;
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (e)
		sibyl_notice(SIBYL_NOTICE_ERROR, "%s: %s", what, strerror(e));
	else
		sibyl_notice(SIBYL_NOTICE_ERROR, "%s", what);
	return -1;
}

static void free_drain(struct sibyl_drain *d)
{
	if (d->inotify_fd >= 0)
		close(d->inotify_fd);
	/* Also removes rings whose header never became valid. */
	if (d->own_ring_dir && sibyl_remove_tree(d->ring_dir) != 0)
		sibyl_warn("trace: cannot remove %s", d->ring_dir);
	sibyl_strlist_free(&d->pending);
	free(d->rings);
	free(d->ctl_path);
	free(d->ring_dir);
	free(d->dir);
	free(d);
}

/* Bigger rings get no spare: it would hold that much of /dev/shm for the
 * whole run, and providing it would delay the command's start. */
#define SPARE_MAX_BYTES ((uint64_t)16 << 20)

static void keep_spare(struct sibyl_drain *d)
{
	if (d->ctl->ring_bytes <= SPARE_MAX_BYTES)
		sibyl_ring_spare_keep(d->ring_dir, SIBYL_RING_DATA_OFFSET + d->ctl->ring_bytes,
				      d->file_mode);
}

struct sibyl_drain *sibyl_drain_create(const char *dir, uint64_t ring_bytes, char *err,
				       size_t errlen)
{
	struct sibyl_drain *d = sibyl_xcalloc(1, sizeof(*d));
	struct sibyl_drain_control c = { .version = SIBYL_TRACE_VERSION };

	memcpy(c.magic, SIBYL_DRAIN_MAGIC, 8);
	c.ring_bytes = (ring_bytes + 4095) / 4096 * 4096;
	c.drainer_pid = (uint32_t)getpid();
	d->dir = sibyl_xstrdup(dir);
	d->file_mode = sibyl_dir_file_mode(dir);
	choose_ring_dir(d);
	d->ctl_path = sibyl_path_join(dir, SIBYL_DRAIN_FILE);
	d->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* IN_MOVED_TO: a thread that takes the spare renames it. */
	if (d->inotify_fd >= 0 &&
	    inotify_add_watch(d->inotify_fd, d->ring_dir, IN_CREATE | IN_MOVED_TO) < 0) {
		close(d->inotify_fd);
		d->inotify_fd = -1;
	}
	if (strlen(d->ring_dir) >= sizeof(c.ring_dir)) {
		sibyl_seterr(err, errlen, "%s: path too long for the ring directory", d->ring_dir);
		free_drain(d);
		return NULL;
	}
	strcpy(c.ring_dir, d->ring_dir);
	int fd = open(d->ctl_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, d->file_mode);

	if (fd < 0 || write(fd, &c, sizeof(c)) != (ssize_t)sizeof(c)) {
		sibyl_seterr_errno(err, errlen, "cannot create %s", d->ctl_path);
		goto fail;
	}
	d->ctl = mmap(NULL, sizeof(c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	fd = -1;
	if (d->ctl == MAP_FAILED) {
		sibyl_seterr_errno(err, errlen, "cannot map %s", d->ctl_path);
		goto fail;
	}
	/* Before the command starts: its first thread takes it. */
	keep_spare(d);
	return d;
fail:
	if (fd >= 0)
		close(fd);
	unlink(d->ctl_path);
	free_drain(d);
	return NULL;
}

static bool known(struct sibyl_drain *d, const char *path)
{
	for (size_t i = 0; i < d->nrings; i++)
		if (!strcmp(d->rings[i].path, path))
			return true;
	return false;
}

/* "<pid>.<gen>-<tid>.ring" -> pid, gen; false for other names. */
static bool parse_ring_name(const char *name, uint32_t *pid, uint32_t *gen)
{
	unsigned p, g, tid;
	int end = 0;

	return sscanf(name, "%u.%u-%u.ring%n", &p, &g, &tid, &end) == 3 &&
	       name[end] == '\0' && (*pid = p, *gen = g, true);
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf = (const char *)buf + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* Create the trace's <pid>.<gen>-<tid>.events for ring file `name`, with
 * its header at once: a file without one would make the trace unreadable. */
static int create_events(struct sibyl_drain *d, const char *name,
			 const struct sibyl_events_header *ring_events)
{
	size_t stem = strlen(name) - strlen(".ring");
	char *file = sibyl_xmalloc(stem + sizeof(".events"));
	struct sibyl_events_header first = *ring_events;

	memcpy(file, name, stem);
	strcpy(file + stem, ".events");
	char *events = sibyl_path_join(d->dir, file);
	int fd = open(events, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, d->file_mode);

	first.committed = 0;
	if (fd < 0) {
		ring_error("trace: cannot create %s", events);
	} else if (write_all(fd, &first, sizeof(first), 0) != 0) {
		ring_error("trace: cannot write %s", events);
		close(fd);
		unlink(events);
		fd = -1;
	}
	free(events);
	free(file);
	return fd;
}

/*
 * Map a ring once the runtime has finished its header (magic last).  The
 * magic is read with pread, not through a mapping: a ring whose header
 * page the runtime could not get (full /dev/shm) is a hole, and loading
 * from a hole makes tmpfs allocate a page, or raise SIGBUS when full.  A
 * valid magic means the page exists.  Returns 0 when the ring is open,
 * 1 to try again later, 2 when the file is gone, -1 on an error.
 */
static int open_ring(struct sibyl_drain *d, char *path, const char *name)
{
	uint32_t pid, gen;
	struct stat st;
	char magic[8];

	if (!parse_ring_name(name, &pid, &gen))
		return -1;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 2 : ring_error("trace: cannot open %s", path);
	if (fstat(fd, &st) != 0 || st.st_size < SIBYL_RING_DATA_OFFSET ||
	    pread(fd, magic, sizeof(magic), offsetof(struct sibyl_ring_header, magic)) !=
		    (ssize_t)sizeof(magic) || memcmp(magic, SIBYL_RING_MAGIC, sizeof(magic))) {
		close(fd);
		return 1;	/* not ready yet */
	}
	struct sibyl_ring_header *h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return ring_error("trace: cannot map %s", path);
	uint64_t capacity = h->capacity;

	if (capacity == 0 ||
	    (uint64_t)st.st_size != SIBYL_RING_DATA_OFFSET + capacity * SIBYL_RECORD_SIZE) {
		munmap(h, (size_t)st.st_size);
		return 1;
	}
	int efd = create_events(d, name, &h->events);

	if (efd < 0) {
		__atomic_store_n(&h->abandoned, 1, __ATOMIC_RELEASE);
		munmap(h, (size_t)st.st_size);
		return -1;
	}
	d->rings = sibyl_xreallocarray(d->rings, d->nrings + 1, sizeof(*d->rings));
	d->rings[d->nrings++] = (struct ring){
		.path = path, .h = h, .map_bytes = (size_t)st.st_size, .capacity = capacity,
		.events_fd = efd, .pid = pid, .gen = gen,
	};
	return 0;
}

static bool is_ring_name(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".ring");
}

/* Try a ring by name; 1 if it should be tried again later. */
static int try_ring(struct sibyl_drain *d, const char *name)
{
	char *path = sibyl_path_join(d->ring_dir, name);

	if (known(d, path)) {
		free(path);
		return 0;
	}
	int r = open_ring(d, path, name);

	if (r != 0)
		free(path);
	if (r < 0)
		d->failed = 1;
	return r == 1;
}

static void scan(struct sibyl_drain *d)
{
	DIR *dir = opendir(d->ring_dir);
	struct dirent *e;

	while (dir && (e = readdir(dir))) {
		if (is_ring_name(e->d_name))
			try_ring(d, e->d_name);
	}
	if (dir)
		closedir(dir);
}

/* Rings created since the last look (inotify), and earlier ones whose
 * header was not complete yet.  Without inotify, or when its queue
 * overflowed: rescan the directory. */
static void scan_new(struct sibyl_drain *d)
{
	struct sibyl_strlist retry = { 0 };
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool rescan = d->inotify_fd < 0;
	ssize_t n;

	while (d->inotify_fd >= 0 && (n = read(d->inotify_fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->mask & IN_Q_OVERFLOW)
				rescan = true;
			else if (e->len && is_ring_name(e->name))
				sibyl_strlist_add(&d->pending, e->name);
			p += sizeof(*e) + e->len;
		}
	if (rescan)
		scan(d);
	for (size_t i = 0; i < d->pending.count; i++)
		if (try_ring(d, d->pending.items[i]))
			sibyl_strlist_add(&retry, d->pending.items[i]);
	sibyl_strlist_free(&d->pending);
	d->pending = retry;
}

/* Append the ring's new records to its .events file; advance tail. */
static int drain_ring(struct ring *r)
{
	struct sibyl_ring_header *h = r->h;
	bool closed = __atomic_load_n(&h->closed, __ATOMIC_ACQUIRE);
	uint64_t head = __atomic_load_n(&h->events.committed, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail, cap = r->capacity;
	const char *data = (const char *)h + SIBYL_RING_DATA_OFFSET;

	if (head < tail || head - tail > cap)
		return errno = 0, ring_error("trace: %s: ring counters are inconsistent; records lost",
					    r->path);
	while (tail < head) {
		uint64_t slot = tail % cap, n = head - tail;

		if (n > cap - slot)
			n = cap - slot;
		if (n > DRAIN_CHUNK)
			n = DRAIN_CHUNK;
		if (write_all(r->events_fd, data + slot * SIBYL_RECORD_SIZE, n * SIBYL_RECORD_SIZE,
			      (off_t)(sizeof(h->events) + tail * SIBYL_RECORD_SIZE)) != 0)
			return ring_error("trace: cannot write the records of %s", r->path);
		tail += n;
		r->tail = tail;
		__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	}
	if (tail != r->header_written || closed || r->done || tail == 0) {
		struct sibyl_events_header copy = h->events;

		copy.committed = tail;
		if (write_all(r->events_fd, &copy, sizeof(copy), 0) != 0)
			return ring_error("trace: cannot write the header for %s", r->path);
		r->header_written = tail;
	}
	if (closed)
		r->closed = r->done = true;
	return 0;
}

/*
 * A finished ring: close its .events file and give its pages back.  Only
 * a ring its thread closed, or whose process image is gone, may be
 * truncated: a live mapping of a truncated file raises SIGBUS.
 */
static void retire_ring(struct ring *r, bool truncate_it)
{
	close(r->events_fd);
	munmap(r->h, r->map_bytes);
	r->h = NULL;
	/* Keep the (now empty) file until the end so that the name is not
	 * reused by a later thread with the same tid. */
	if (truncate_it && truncate(r->path, 0) != 0)
		sibyl_warn("trace: cannot truncate %s", r->path);
}

/* The image that writes the ring exited or exec'd: its mappings are gone. */
static bool image_gone(struct sibyl_drain *d, const struct ring *r)
{
	if (kill((pid_t)r->pid, 0) != 0 && errno == ESRCH)
		return true;
	char name[64];

	snprintf(name, sizeof(name), "%u.%u.proc", r->pid, r->gen + 1);
	char *next = sibyl_path_join(d->dir, name);
	bool exec_d = access(next, F_OK) == 0;

	free(next);
	return exec_d;
}

/* Returns the number of records copied. */
static uint64_t drain_all(struct sibyl_drain *d, bool check_liveness)
{
	uint64_t copied = 0;

	for (size_t i = 0; i < d->nrings; i++) {
		struct ring *r = &d->rings[i];

		if (!r->h)
			continue;
		bool gone = check_liveness && !r->done && !r->closed && image_gone(d, r);
		uint64_t before = r->tail;

		if (drain_ring(r) != 0) {
			/* Stop the producer from waiting for us, keep its mapping valid. */
			__atomic_store_n(&r->h->abandoned, 1, __ATOMIC_RELEASE);
			d->failed = 1;
			retire_ring(r, false);
			continue;
		}
		copied += r->tail - before;
		if (r->done || gone)
			retire_ring(r, r->closed || gone);
	}
	return copied;
}

static void *drain_thread(void *arg)
{
	struct sibyl_drain *d = arg;
	struct timespec wake = { 0, WAKE_INTERVAL_NS };

	for (unsigned pass = 1; !__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE); pass++) {
		uint32_t seen = __atomic_load_n(&d->ctl->doorbell, __ATOMIC_ACQUIRE);

		scan_new(d);
		/* A thread took the spare: make the next one when no ring needs
		 * us (providing 4 MiB takes ~3 ms, time a busy ring may lack). */
		if (!drain_all(d, pass % LIVENESS_PASSES == 0))
			keep_spare(d);
		syscall(SYS_futex, &d->ctl->doorbell, FUTEX_WAIT, seen, &wake, NULL, 0);
	}
	return NULL;
}

int sibyl_drain_start(struct sibyl_drain *d, char *err, size_t errlen)
{
	if (pthread_create(&d->thread, NULL, drain_thread, d) != 0)
		return sibyl_seterr(err, errlen, "cannot start the drain thread");
	d->running = true;
	return 0;
}

/* Drain every open ring one last time and retire it. */
static void last_look(struct sibyl_drain *d)
{
	for (size_t i = 0; i < d->nrings; i++)
		d->rings[i].done = true;
	drain_all(d, false);
}

int sibyl_drain_finish(struct sibyl_drain *d)
{
	if (!d)
		return 0;
	if (d->running) {
		__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&d->ctl->doorbell, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &d->ctl->doorbell, FUTEX_WAKE, 1, NULL, NULL, 0);
		pthread_join(d->thread, NULL);
	}
	sibyl_ring_spare_drop(d->ring_dir);
	/* From now on producers (descendants that outlive the command) drop
	 * records at once instead of waiting for a drainer that is leaving. */
	__atomic_store_n(&d->ctl->finished, 1, __ATOMIC_RELEASE);
	/* Retire the rings already open first, which frees their
	 * descriptors, then open and drain every ring left in ring_dir. */
	last_look(d);
	scan(d);
	last_look(d);
	for (size_t i = 0; i < d->nrings; i++) {
		unlink(d->rings[i].path);
		free(d->rings[i].path);
	}
	munmap(d->ctl, sizeof(*d->ctl));
	unlink(d->ctl_path);
	int failed = d->failed;

	free_drain(d);
	return failed ? -1 : 0;
}
