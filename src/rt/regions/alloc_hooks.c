/*
 * The allocation functions, interposed (libsibyl-regions.so is preloaded
 * before the program's libraries): each calls the next definition
 * (glibc's, or the program's own allocator) and logs what it did for the
 * region tracker, which cannot see allocations any other way.  This is
 * why the tracker is a library of its own, preloaded only for wrappers
 * that want it.
 *
 * Start-up: the first call resolves the next definitions with
 * dlsym(RTLD_NEXT), and dlsym itself allocates; those nested requests
 * are served from a small static arena (zero-filled, so good for calloc
 * too), whose blocks are never given back.
 *
 * Order: a block is logged after the real allocation returned and its
 * release before the real release (region_log.c says why).
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	size_t (*usable_size)(void *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
} next;

/* 0: not resolved, 1: a thread is resolving, 2: done. */
static int resolve_state;
/* This thread is resolving: its nested requests go to the arena. */
static __thread int resolving_here __attribute__((tls_model("initial-exec")));

/* ---- the start-up arena ---- */
#define BOOT_BYTES (256 * 1024)
static _Alignas(64) unsigned char boot[BOOT_BYTES];
static size_t boot_used;

/* 16-byte header holding the size, so realloc can copy the block out. */
static void *boot_alloc(size_t n)
{
	size_t need = (n + 15) / 16 * 16 + 16;
	size_t at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);

	if (n > BOOT_BYTES || at + need > BOOT_BYTES)
		return NULL;
	*(size_t *)(boot + at) = n;
	return boot + at + 16;
}

static bool in_boot(const void *p)
{
	return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + BOOT_BYTES;
}

static void resolve(void)
{
#define NEXT(field, name) *(void **)&next.field = dlsym(RTLD_NEXT, name)
	resolving_here = 1;
	NEXT(malloc, "malloc");
	NEXT(calloc, "calloc");
	NEXT(realloc, "realloc");
	NEXT(reallocarray, "reallocarray");
	NEXT(free, "free");
	NEXT(posix_memalign, "posix_memalign");
	NEXT(aligned_alloc, "aligned_alloc");
	NEXT(memalign, "memalign");
	NEXT(valloc, "valloc");
	NEXT(usable_size, "malloc_usable_size");
	NEXT(mmap, "mmap");
	NEXT(munmap, "munmap");
	NEXT(mremap, "mremap");
	NEXT(pthread_create, "pthread_create");
	resolving_here = 0;
#undef NEXT
}

/* Not resolved yet: resolve, or wait for the thread that does.  false:
 * this thread is inside dlsym, serve the request from the arena.
 * Another thread's requests wait the few microseconds dlsym takes. */
static __attribute__((noinline, cold)) bool resolve_first(void)
{
	int st = 0;

	if (resolving_here)
		return false;
	if (__atomic_compare_exchange_n(&resolve_state, &st, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		resolve();
		__atomic_store_n(&resolve_state, 2, __ATOMIC_RELEASE);
		return true;
	}
	while (__atomic_load_n(&resolve_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return true;
}

/* Inline: every hook asks it first. */
static inline __attribute__((always_inline)) bool ready(void)
{
	return __builtin_expect(__atomic_load_n(&resolve_state, __ATOMIC_ACQUIRE) == 2, 1) ||
	       resolve_first();
}

static inline void log_block(enum region_op op, const void *p, uint64_t len)
{
	if (p)
		region_log(op, (uintptr_t)p, len);
}

/* A block whose contents are whatever the allocator left there. */
static inline void hold_undefined(const void *p, uint64_t len)
{
	if (p)
		region_hold((uintptr_t)p, len,
			    len / 8 < REGION_LEFT_WORDS ? (unsigned)(len / 8) : REGION_LEFT_WORDS);
}

REGIONS_EXPORT void *malloc(size_t n)
{
	if (!ready())
		return boot_alloc(n);
	void *p = next.malloc(n);

	hold_undefined(p, n);
	return p;
}

REGIONS_EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total))
		total = 0;	/* the real calloc fails it with ENOMEM */
	if (!ready())
		return total || !n ? boot_alloc(total) : NULL;
	void *p = next.calloc(n, size);

	if (p)
		region_hold((uintptr_t)p, total, 0);
	return p;
}

REGIONS_EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	region_release((uintptr_t)p);
	if (ready())
		next.free(p);
}

/* A block of the start-up arena moves to the real heap. */
static void *boot_realloc(void *p, size_t n)
{
	size_t old = *(size_t *)((unsigned char *)p - 16);
	void *q = malloc(n);

	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

REGIONS_EXPORT void *realloc(void *p, size_t n)
{
	if (in_boot(p))
		return boot_realloc(p, n);
	if (!ready())
		return p ? NULL : boot_alloc(n);
	if (p)
		region_release((uintptr_t)p);
	void *q = next.realloc(p, n);

	if (q)
		region_hold((uintptr_t)q, n, 0);
	else if (p && n)	/* failed: p is still the program's */
		region_hold((uintptr_t)p, next.usable_size ? next.usable_size(p) : 0, 0);
	return q;
}

REGIONS_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (in_boot(p) || !ready() || !next.reallocarray) {
		if (__builtin_mul_overflow(n, size, &total))
			return NULL;
		return realloc(p, total);
	}
	if (p)
		region_release((uintptr_t)p);
	void *q = next.reallocarray(p, n, size);

	if (q)
		region_hold((uintptr_t)q, n * size, 0);
	else if (p && n && size)
		region_hold((uintptr_t)p, next.usable_size ? next.usable_size(p) : 0, 0);
	return q;
}

REGIONS_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!ready())
		return ENOMEM;
	int rc = next.posix_memalign(out, align, n);

	if (rc == 0)
		hold_undefined(*out, n);
	return rc;
}

REGIONS_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = ready() ? next.aligned_alloc(align, n) : NULL;

	hold_undefined(p, n);
	return p;
}

REGIONS_EXPORT void *memalign(size_t align, size_t n)
{
	void *p = ready() ? next.memalign(align, n) : NULL;

	hold_undefined(p, n);
	return p;
}

REGIONS_EXPORT void *valloc(size_t n)
{
	void *p = ready() ? next.valloc(n) : NULL;

	hold_undefined(p, n);
	return p;
}

/* ---- mappings ---- */

REGIONS_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!ready())	/* inside dlsym: past the hook */
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	void *p = next.mmap(addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED)
		log_block(REGION_MAP, p, len);
	return p;
}

/* The same function under its large-file name (off_t is 64-bit here). */
REGIONS_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

REGIONS_EXPORT int munmap(void *addr, size_t len)
{
	if (!ready())
		return (int)syscall(SYS_munmap, addr, len);
	log_block(REGION_UNMAP, addr, len);
	return next.munmap(addr, len);
}

REGIONS_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!ready())
		return MAP_FAILED;
	log_block(REGION_UNMAP, old, old_len);
	void *p = next.mremap(old, old_len, new_len, flags, new_addr);

	if (p != MAP_FAILED)
		log_block(REGION_MAP, p, new_len);
	else
		log_block(REGION_MAP, old, old_len);	/* unchanged */
	return p;
}

/* A thread gives its held block's record back when it ends, returning
 * or exiting (a cleanup handler runs on pthread_exit and cancellation). */
struct start {
	void *(*start)(void *);
	void *arg;
};

static void thread_end(void *unused)
{
	(void)unused;
	region_held_thread_end();
}

static void *tracked_start(void *p)
{
	struct start st = *(struct start *)p;
	void *rc;

	next.free(p);	/* never the program's: not logged */
	pthread_cleanup_push(thread_end, NULL);
	rc = st.start(st.arg);
	pthread_cleanup_pop(1);
	return rc;
}

/* A new thread has a new stack: the next lookup that misses re-reads
 * the maps.  What this thread holds is logged first: the new thread may
 * well be given it. */
REGIONS_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			     void *(*start)(void *), void *arg)
{
	if (!ready())
		return EAGAIN;
	region_held_flush();
	struct start *st = next.malloc(sizeof(*st));
	int rc;

	if (st) {
		*st = (struct start){ start, arg };
		rc = next.pthread_create(thread, attr, tracked_start, st);
		if (rc != 0)
			next.free(st);
	} else {
		rc = next.pthread_create(thread, attr, start, arg);
	}
	if (rc == 0)
		__atomic_fetch_add(&regions_threads, 1, __ATOMIC_RELAXED);
	return rc;
}
