/*
 * The allocation fast path: each hook claims the next slot of one ring
 * with a compare-and-swap, stores the event and publishes it with its
 * sequence number; nothing else.  Whoever next needs the regions (a
 * wrapped call, or a hook that finds the ring full) applies the
 * published events in order under the tracker's lock.
 *
 * Order matters (a block freed by one thread may be handed out again to
 * another at once), and the slot order is the order of the operations
 * on any one address: the hooks log a free *before* the real free and an
 * allocation *after* the real allocation returned, so an address cannot
 * be handed out again before its free has its slot.
 *
 * An event is lost only when the ring is full and cannot be emptied:
 * the lock is held by this very thread (a signal handler interrupted a
 * lookup) or a slot is claimed but not yet published.  Losses
 * are counted; lookups then stop reading memory through pointers, since
 * a block the tracker believes live may have been unmapped.
 */
#include "rt/regions/regions.h"

#include <errno.h>

struct log_entry {
	uint64_t seq;		/* slot number + 1 once published */
	uintptr_t addr;
	uint64_t len;
	uint32_t op;
	uint32_t pad;
};

/* 16384 slots, 512 KiB of zero pages until used. */
#define LOG_SLOTS (1u << 14)

static struct log_entry ring[LOG_SLOTS];
static uint64_t head;	/* slots claimed */
static uint64_t tail;	/* slots applied (written under the lock) */
uint64_t regions_lost;

static bool claim(uint64_t *slot)
{
	uint64_t h = __atomic_load_n(&head, __ATOMIC_RELAXED);

	do {
		if (h - __atomic_load_n(&tail, __ATOMIC_ACQUIRE) >= LOG_SLOTS)
			return false;
	} while (!__atomic_compare_exchange_n(&head, &h, h + 1, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	*slot = h;
	return true;
}

/* The ring is full: empty it, unless this thread already holds the lock. */
static void make_room(void)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	uint32_t saved = t->in_runtime;
	int saved_errno = errno;

	if (region_lock_held())
		return;		/* a signal handler interrupted this thread's tracker */
	t->in_runtime = 1;
	region_lock();
	struct region_state *s = region_state();

	region_log_apply(&s->blocks, &s->areas);
	region_unlock();
	t->in_runtime = saved;
	errno = saved_errno;
}

void region_log(enum region_op op, uintptr_t addr, uint64_t len)
{
	uint64_t slot;

	if (!claim(&slot)) {
		make_room();
		if (!claim(&slot)) {
			__atomic_fetch_add(&regions_lost, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	struct log_entry *e = &ring[slot % LOG_SLOTS];

	e->addr = addr;
	e->len = len;
	e->op = op;
	__atomic_store_n(&e->seq, slot + 1, __ATOMIC_RELEASE);
}

static bool apply_one(const struct log_entry *e, struct region_tree *blocks,
		      struct region_tree *areas)
{
	switch (e->op) {
	case REGION_ALLOC:
	case REGION_MAP:
		return region_insert(blocks, e->addr, e->addr + e->len);
	case REGION_FREE:
		region_erase(blocks, e->addr);
		return true;
	case REGION_UNMAP:
		return region_cut(blocks, e->addr, e->addr + e->len) &&
		       region_cut(areas, e->addr, e->addr + e->len);
	}
	return true;
}

void region_log_apply(struct region_tree *blocks, struct region_tree *areas)
{
	for (;;) {
		uint64_t t = tail;
		const struct log_entry *e = &ring[t % LOG_SLOTS];

		/* Stop at the first slot claimed but not yet published. */
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != t + 1)
			return;
		if (!apply_one(e, blocks, areas))
			__atomic_fetch_add(&regions_lost, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&tail, t + 1, __ATOMIC_RELEASE);
	}
}

/* In the child of fork only the forking thread is left: a slot another
 * thread had claimed but not published will never be, so it becomes an
 * empty event instead of blocking the log for good. */
void region_log_after_fork(void)
{
	uint64_t h = __atomic_load_n(&head, __ATOMIC_RELAXED);

	for (uint64_t i = tail; i < h; i++) {
		struct log_entry *e = &ring[i % LOG_SLOTS];

		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != i + 1) {
			e->op = 0;
			__atomic_store_n(&e->seq, i + 1, __ATOMIC_RELEASE);
		}
	}
}
