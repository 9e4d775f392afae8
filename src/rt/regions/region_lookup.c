/*
 * The tracker's state, its lock, and the lookup of one pointer.
 *
 * One lock serialises applying the event log and looking pointers up.
 * It is taken only with the thread's in_runtime guard set, so a signal
 * handler that interrupts a lookup and makes a wrapped call passes
 * through untraced instead of waiting for a lock its own thread holds;
 * a hook that finds the ring full on such a thread gives up (counted)
 * instead of waiting.  A fork while another thread holds the lock would
 * leave the child waiting forever: the child starts with it free.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

static struct region_state state;
static int lock_word;
uint64_t regions_threads;

struct region_state *region_state(void)
{
	return &state;
}

static __thread int lock_held __attribute__((tls_model("initial-exec")));

/* lock_held is set before the lock is taken: a signal handler arriving
 * in between must not wait for it either. */
void region_lock(void)
{
	lock_held = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (unsigned spins = 0;
	     __atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE); spins++)
		if (spins > 64)
			sched_yield();
}

/* lock_held is cleared after the lock is released: a handler arriving
 * in between gives up instead of spinning on its own thread's lock. */
void region_unlock(void)
{
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lock_held = 0;
}

bool region_lock_held(void)
{
	return lock_held;
}

static void child_after_fork(void)
{
	lock_word = 0;
	region_log_after_fork();
	region_held_after_fork();
	shadow_wp_after_fork();
	carry_after_fork();
}

static uint64_t maps_generation(void)
{
	return region_maps_dl_generation() + __atomic_load_n(&regions_threads, __ATOMIC_RELAXED);
}

/* Re-reads on a miss outside the read-only mappings: one per 10 ms, and
 * up to 8 at once (threads starting together), so that a program passing
 * pointers into unmapped or inaccessible memory pays for at most 100
 * reads of the maps a second (~100 us each for a few hundred mappings,
 * about 1%).  Lock held. */
#define REREAD_EVERY_NS 10000000ll
#define REREAD_BURST 8

static bool reread_allowed(struct region_state *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* async-signal-safe */
	int64_t now = ts.tv_sec * 1000000000ll + ts.tv_nsec;

	if (s->reread_ns < now - REREAD_BURST * REREAD_EVERY_NS)
		s->reread_ns = now - REREAD_BURST * REREAD_EVERY_NS;
	if (s->reread_ns > now)
		return false;
	s->reread_ns += REREAD_EVERY_NS;
	return true;
}

/*
 * p is in no known region: the maps may have changed since they were
 * read.  Certainly after a dlopen or a new thread (its stack); and glibc
 * makes and grows the arenas of threads with mmap and mprotect calls of
 * its own, which no hook sees, so a pointer into another thread's arena
 * outside any block once got size 0 for good.  A pointer into read-only
 * data (a string literal, say) stays unknown without a re-read; any
 * other re-reads, at a limited rate.
 */
static bool maps_may_have_changed(struct region_state *s, uintptr_t p)
{
	uint64_t g = maps_generation();
	struct region r;

	if (!s->areas_read || g != s->areas_generation) {
		s->areas_generation = g;
		return true;
	}
	return !region_find(&s->readonly, p, &r) && reread_allowed(s);
}

bool region_lookup(struct region_state *s, uintptr_t p, struct region *out, bool *is_block)
{
	*is_block = true;
	if (region_find(&s->blocks, p, out) ||
	    region_held_find(s, p, out))
		return true;
	*is_block = false;
	if (region_find(&s->areas, p, out))
		return true;
	/* Unknown: re-read the maps only when they may have changed, so an
	 * unknown pointer does not cost a read of the maps per call. */
	if (!maps_may_have_changed(s, p))
		return false;
	s->areas_read = true;
	/* Without /proc, misses stop asking: only a new thread or dlopen
	 * tries again.  Readers' caches are dropped only for new areas. */
	if (!region_maps_read(&s->areas, &s->readonly)) {
		s->reread_ns = INT64_MAX;
		return false;
	}
	__atomic_store_n(&s->version, s->version + 1, __ATOMIC_RELEASE);
	return region_find(&s->areas, p, out);
}

/* Loaded means wanted: `sibyl trace` preloads this library only for
 * wrappers that ask for it, and it tracks from the first allocation. */
__attribute__((constructor)) static void regions_init(void)
{
	pthread_atfork(NULL, NULL, child_after_fork);
}
