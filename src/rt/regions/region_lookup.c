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

void region_unlock(void)
{
	lock_held = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
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

bool region_lookup(struct region_state *s, uintptr_t p, struct region *out, bool *is_block)
{
	*is_block = true;
	if (region_find(&s->blocks, p, out) ||
	    region_held_find(s, p, out))
		return true;
	*is_block = false;
	if (region_find(&s->areas, p, out))
		return true;
	/* Unknown: perhaps a library or a thread stack mapped since the maps
	 * were read.  Re-read them only then, so an unknown pointer (into
	 * read-only data, say) does not cost a read of the maps per call. */
	uint64_t g = maps_generation();

	if (s->areas_read && g == s->areas_generation)
		return false;
	s->areas_read = true;
	s->areas_generation = g;
	region_maps_read(&s->areas);
	__atomic_store_n(&s->version, s->version + 1, __ATOMIC_RELEASE);
	return region_find(&s->areas, p, out);
}

/* Loaded means wanted: `sibyl trace` preloads this library only for
 * wrappers that ask for it, and it tracks from the first allocation. */
__attribute__((constructor)) static void regions_init(void)
{
	pthread_atfork(NULL, NULL, child_after_fork);
}
