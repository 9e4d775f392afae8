/*
 * The allocation fast path: each hook claims the next slot of one ring
 * with a compare-and-swap, stores the event and publishes it with its
 * sequence number; nothing else.  Whoever next needs the regions (a
 * wrapped call, or a hook that finds the ring full) applies the
 * published events in order under the tracker's lock, past the slots
 * still being written (gaps, below).
 *
 * Order matters (a block freed by one thread may be handed out again to
 * another at once), and the slot order is the order of the operations
 * on any one address: the hooks log a free *before* the real free and an
 * allocation *after* the real allocation returned, so an address cannot
 * be handed out again before its free has its slot.
 *
 * An event is lost only when the ring is full and cannot be emptied:
 * the lock is held by this very thread (a signal handler interrupted a
 * lookup), or its oldest slot is claimed but not yet published by a
 * thread that does not come back to it (wait_room).  A handler that
 * interrupted its own thread's append applies its events at once
 * instead (make_room).  Losses are counted; lookups then stop reading
 * memory through pointers, since a block the tracker believes live may
 * have been unmapped.
 */
#include "rt/regions/regions.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

struct log_entry {
	uint64_t seq;		/* slot number + 1 once published */
	uintptr_t addr;
	uint64_t len;
	uint32_t op;
	uint32_t late;		/* slots claimed since the event happened
				   (region_held.c); UINT32_MAX: too many */
	struct region_contents c;	/* of an allocation */
};

/* 16384 slots, 1 MiB of zero pages until used. */
#define LOG_SLOTS (1u << 14)

static struct log_entry ring[LOG_SLOTS];
static uint64_t head;	/* slots claimed */
static uint64_t tail;	/* slots below it are applied (written under the lock) */
uint64_t regions_lost;

/*
 * This thread may hold a slot claimed and not yet published: set before
 * the compare-and-swap (a signal handler arriving just after it must see
 * it), and back to what it was when no slot was claimed.  Only such a
 * slot keeps a handler on this thread from waiting for room: set while
 * the thread merely waited, it once made the handlers' events lost for
 * as long as the ring stayed full (dozens of ws_copy pages unknown).
 */
static __thread bool appending __attribute__((tls_model("initial-exec")));

/* outer: the value of `appending` before this append.  Inline: it is
 * most of an append. */
static inline __attribute__((always_inline)) bool claim(uint64_t *slot, bool outer)
{
	uint64_t h = __atomic_load_n(&head, __ATOMIC_RELAXED);

	appending = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	do {
		if (h - __atomic_load_n(&tail, __ATOMIC_ACQUIRE) >= LOG_SLOTS) {
			appending = outer;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&head, &h, h + 1, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	*slot = h;
	return true;
}

static void apply_late(struct region_state *s, struct log_entry *e, uint64_t i);

/* The `late` of an event at `slot` that happened when the head was
 * `since`. */
static uint32_t late_of(uint64_t slot, uint64_t since)
{
	return since >= slot ? 0 : slot - since > UINT32_MAX ? UINT32_MAX : (uint32_t)(slot - since);
}

/*
 * The ring is full: empty it, then apply `now` (since: as for the ring)
 * when not NULL.  False when this thread already holds the lock (a
 * signal handler interrupted its lookup): the sets cannot be touched.
 *
 * `now` is for a thread that cannot wait for room: a signal handler
 * interrupted its own append between claim and publish, and the oldest
 * slot, the one keeping the ring full, may be that very one (its thread
 * was preempted there).  Rather than lost, the event is applied at once,
 * after every slot published so far, as a gap published now would be:
 * it happened after them, and the slots still unpublished are on other
 * blocks (see the gaps).  It comes after the slots claimed so far: an
 * allocation as if at the next slot, a free as if at the last one, so
 * that the allocations made after it are not taken as freed by it
 * (stale).  A late allocation of its address made before it and after
 * that last slot, still held by another thread (given to a signal
 * handler), would then pass as live.
 */
static bool make_room(struct log_entry *now, uint64_t since)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	uint32_t saved = t->in_runtime;
	int saved_errno = errno;

	if (region_lock_held())
		return false;
	t->in_runtime = 1;
	region_lock();
	struct region_state *s = region_state();

	region_log_apply(s);
	if (now) {
		uint64_t i = __atomic_load_n(&head, __ATOMIC_RELAXED) - (now->op == REGION_FREE);

		now->late = late_of(i, since);
		apply_late(s, now, i);
	}
	region_unlock();
	t->in_runtime = saved;
	errno = saved_errno;
	return true;
}

/* The oldest slot waited for in vain, + 1 (0: none). */
static uint64_t given_up;

#define ROOM_WAIT_NS 1000000000ll	/* for the oldest slot to be published */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* async-signal-safe */
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/*
 * The ring is full and cannot be emptied past its oldest slot, claimed
 * and not yet published: its thread was preempted in between, under
 * load for many milliseconds.  The event waits for it rather than being
 * lost, unless this thread cannot wait (a signal handler interrupted its
 * own append between claim and publish, or its lookup) or that slot was
 * waited for in vain already (its thread never returns to it: a handler
 * left by longjmp).
 */
static bool wait_room(uint64_t *slot, bool outer)
{
	if (outer || region_lock_held())
		return false;
	long long start = now_ns();
	uint64_t oldest = __atomic_load_n(&tail, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&given_up, __ATOMIC_RELAXED) != oldest + 1) {
		sched_yield();
		make_room(NULL, 0);
		if (claim(slot, false))
			return true;
		uint64_t next = __atomic_load_n(&tail, __ATOMIC_ACQUIRE);

		if (next != oldest)	/* that one came; the next is waited for anew */
			start = now_ns();
		else if (now_ns() - start > ROOM_WAIT_NS)
			__atomic_store_n(&given_up, oldest + 1, __ATOMIC_RELAXED);
		oldest = next;
	}
	return false;
}

/* No slot for the event: applied at once when a handler interrupted
 * this thread's append (make_room), else lost.  Out of line: the 100
 * bytes of `now` stay off the append's frame. */
static __attribute__((noinline, cold)) void no_room(enum region_op op, uintptr_t addr,
						     uint64_t len, const struct region_contents *c,
						     uint64_t since, bool outer)
{
	struct log_entry now = { .addr = addr, .len = len, .op = op };

	if (c)
		now.c = *c;
	if (!outer || !make_room(&now, since))
		__atomic_fetch_add(&regions_lost, 1, __ATOMIC_RELAXED);
}

uint64_t region_log_head(void)
{
	return __atomic_load_n(&head, __ATOMIC_RELAXED);
}

void region_ring_append(enum region_op op, uintptr_t addr, uint64_t len,
			const struct region_contents *c, uint64_t since)
{
	uint64_t slot;
	bool outer = appending;

	if (!claim(&slot, outer)) {
		make_room(NULL, 0);
		if (!claim(&slot, outer) && !wait_room(&slot, outer)) {
			no_room(op, addr, len, c, since, outer);
			return;
		}
	}
	struct log_entry *e = &ring[slot % LOG_SLOTS];

	e->addr = addr;
	e->len = len;
	e->op = op;
	e->late = late_of(slot, since);
	if (c)
		e->c = *c;
	else
		e->c.nleft = e->c.sampled = 0;
	__atomic_store_n(&e->seq, slot + 1, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	appending = outer;
}

/* Events other than a held allocation and its free: the thread's held
 * block goes first, so that its events stay in the order they happened. */
void region_log(enum region_op op, uintptr_t addr, uint64_t len)
{
	region_held_flush();
	region_ring_append(op, addr, len, NULL, REGION_NOW);
}

/* The sets change: lookups cached by threads are stale (region_cache.c). */
static void changed(struct region_state *s)
{
	__atomic_store_n(&s->version, s->version + 1, __ATOMIC_RELEASE);
}

static bool apply_one(const struct log_entry *e, struct region_state *s)
{
	switch (e->op) {
	case REGION_ALLOC:
	case REGION_MAP:
		changed(s);
		/* A mapping made where read-only data was is no longer that. */
		if (e->op == REGION_MAP)
			region_cut(&s->readonly, e->addr, e->addr + e->len);
		if (shadow_in_use) {
			shadow_forget(e->addr, e->addr + e->len);
			shadow_seed(e->addr, e->c.left, e->c.nleft);
		}
		if (e->c.nleft && e->len)
			shadow_allocated(e->addr, e->addr + e->len, &e->c);
		return region_insert(&s->blocks, e->addr, e->addr + e->len);
	case REGION_FREE:
		changed(s);
		region_erase(&s->blocks, e->addr);
		return true;
	case REGION_UNMAP:
		changed(s);
		shadow_forget(e->addr, e->addr + e->len);
		return region_cut(&s->blocks, e->addr, e->addr + e->len) &&
		       region_cut(&s->areas, e->addr, e->addr + e->len) &&
		       region_cut(&s->readonly, e->addr, e->addr + e->len);
	}
	return true;	/* 0: an empty or cancelled event */
}

/*
 * A block allocated and freed again within one batch never needs to
 * reach the ordered set (malloc+free in a loop, the common case): both
 * events are cancelled (op 0) instead of an insert and an erase of
 * O(log n) each.  `pending` maps the address of each allocation not yet
 * freed in the batch to its slot, tagged with the batch so that it never
 * needs clearing.  (A block already known at that address because its
 * free was missed, e.g. made by libc internally, stays as it was.)
 */
#define BATCH 1024
#define PENDING_SLOTS (2 * BATCH)	/* a power of two, at most half full */

static struct pending {
	uint32_t batch;
	uint32_t slot;		/* ring index + 1; 0: freed */
	uintptr_t addr;
} pending[PENDING_SLOTS];
static uint32_t batch_no;

static struct pending *pending_of(uintptr_t addr)
{
	uint64_t h = ((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> 53;	/* 11 bits */

	for (;; h++) {
		struct pending *p = &pending[h & (PENDING_SLOTS - 1)];

		if (p->batch != batch_no || p->addr == addr)
			return p;
	}
}

/*
 * Frees of blocks the sets do not hold yet, for the allocations applied
 * after them: the block's allocation is logged late (a thread held it,
 * region_held.c) or applied after later slots (its thread had not
 * published it, below), and is stale when it was freed since it was
 * made.  A bucket remembers the last such free of one address and the
 * latest slot of the frees it forgot, so that it errs on the side of
 * dropping a late allocation (its block is then unknown, which is safe).
 * The frees of known blocks, nearly all of them, are not noted: a
 * bucket rarely forgets.
 */
#define FREES 4096

static struct {
	uintptr_t addr;
	uint64_t slot1;		/* slot of its last free + 1; 0: none */
	uint64_t forgot1;	/* latest slot + 1 of the frees replaced here */
} frees[FREES];

static unsigned free_bucket(uintptr_t addr)
{
	return (unsigned)(((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> 52);	/* 12 bits */
}

/* Lock held: the free at `slot` of addr, applied next.  `settled`: no
 * earlier event of this batch is on addr, so the sets say whether its
 * block is known (an earlier free in the batch, not applied yet, may
 * have freed the known block, and this free a block reallocated since). */
static void note_free(struct region_state *s, uintptr_t addr, uint64_t slot, bool settled)
{
	unsigned b = free_bucket(addr);
	struct region known;

	if (settled && region_find(&s->blocks, addr, &known) && known.start == addr)
		return;
	if (frees[b].addr != addr && frees[b].slot1 > frees[b].forgot1)
		frees[b].forgot1 = frees[b].slot1;
	frees[b].addr = addr;
	frees[b].slot1 = slot + 1;
}

/* The allocation at `slot` was freed after it was made (e->late slots
 * earlier). */
static bool stale(const struct log_entry *e, uint64_t slot)
{
	unsigned b = free_bucket(e->addr);
	uint64_t since = e->late == UINT32_MAX || e->late > slot ? 0 : slot - e->late;

	return (frees[b].addr == e->addr && frees[b].slot1 > since) || frees[b].forgot1 > since;
}

/*
 * Slots claimed but not yet published when the log was applied past
 * them (their thread was preempted between the two, or a signal handler
 * interrupted it there), in order.  Stopping at such a slot, as this log
 * once did, left every later event unapplied meanwhile, and lookups on
 * other threads missed the blocks allocated since (their pointers then
 * fell in a heap area: sizes of megabytes) or found blocks freed since.
 *
 * Applying past it is safe only for the later slots that do not depend
 * on its event.  An event on the same block that happened after it was
 * claimed after it was published: the hooks log frees before and
 * allocations after the real call, so its block can be handed out again
 * (or freed, or given to another thread) only once it is in the ring.
 * A held block logged late is the exception, checked against the frees
 * applied before it (stale).  So a gap still unpublished when read
 * *after* the later slots were read as published has no dependent among
 * them; one published in between may have (its free, then the
 * allocation of the same address by another thread, both in the batch:
 * applied the other way round, the free erased the live block, one
 * lookup in ten thousand then missed it, issue 27).  settle() reads the
 * gaps again once a batch is read, applies the older ones published
 * since before it, and ends the batch at its first one published since.
 */
#define GAPS 64

static uint64_t gaps[GAPS];
static unsigned ngaps;
static uint64_t ahead;	/* slots below it are applied or in gaps[] */

static bool published(uint64_t slot)
{
	return __atomic_load_n(&ring[slot % LOG_SLOTS].seq, __ATOMIC_ACQUIRE) == slot + 1;
}

/* The batch from `from` on: up to its last published slot, the others
 * before it added to gaps[] (the first gap stops it when that is full). */
static uint64_t batch_end(uint64_t from)
{
	uint64_t h = __atomic_load_n(&head, __ATOMIC_ACQUIRE), to = from;
	unsigned n = ngaps;

	for (uint64_t i = from; i < h && i < from + BATCH; i++) {
		if (published(i)) {
			to = i + 1;
			ngaps = n;
		} else if (n < GAPS) {
			gaps[n++] = i;
		} else {
			break;
		}
	}
	return to;
}

/* The event at slot i, in a batch: dropped when a late allocation is
 * stale; an allocation supersedes an earlier one of the same address
 * still pending in the batch (the block at that address is the later
 * one); a free cancels its allocation pending in the batch. */
static void cancel_pair(struct region_state *s, uint64_t i)
{
	struct log_entry *e = &ring[i % LOG_SLOTS];

	if (e->op == REGION_ALLOC && e->late && stale(e, i))
		e->op = 0;
	if (e->op != REGION_ALLOC && e->op != REGION_FREE)
		return;
	struct pending *p = pending_of(e->addr);
	bool paired = p->batch == batch_no && p->slot;

	if (paired)
		ring[p->slot - 1].op = 0;	/* an earlier alloc, or the free's */
	if (e->op == REGION_ALLOC) {
		*p = (struct pending){ batch_no, (uint32_t)(i % LOG_SLOTS) + 1, e->addr };
	} else if (paired) {
		e->op = 0;
		p->slot = 0;
	} else {
		note_free(s, e->addr, i, p->batch != batch_no);
		*p = (struct pending){ batch_no, 0, e->addr };	/* freed in this batch */
	}
}

/* Slots [from, to) but the gaps from gaps[g] on: pairs cancelled, then
 * applied, in order. */
static void apply_batch(struct region_state *s, uint64_t from, uint64_t to, unsigned g)
{
	if (++batch_no == 0)
		batch_no = 1;	/* 0 tags the never-used entries */
	for (uint64_t i = from, k = g; i < to; i++)
		if (k < ngaps && gaps[k] == i)
			k++;
		else
			cancel_pair(s, i);
	for (uint64_t i = from, k = g; i < to; i++)
		if (k < ngaps && gaps[k] == i)
			k++;
		else if (!apply_one(&ring[i % LOG_SLOTS], s))
			__atomic_fetch_add(&regions_lost, 1, __ATOMIC_RELAXED);
}

/* The event of slot i, applied after later slots (the sets are current
 * here): an allocation is checked against the frees applied meanwhile,
 * late or not. */
static void apply_late(struct region_state *s, struct log_entry *e, uint64_t i)
{
	if (e->op == REGION_FREE)
		note_free(s, e->addr, i, true);
	else if (e->op == REGION_ALLOC && stale(e, i))
		e->op = 0;
	if (!apply_one(e, s))
		__atomic_fetch_add(&regions_lost, 1, __ATOMIC_RELAXED);
}

/* Of the first `old` gaps, the ones published since: applied, before
 * the slots read after them.  Returns the gaps kept of those. */
static unsigned fill_gaps(struct region_state *s, unsigned old)
{
	unsigned kept = 0;

	for (unsigned k = 0; k < ngaps; k++) {
		uint64_t i = gaps[k];
		struct log_entry *e = &ring[i % LOG_SLOTS];

		if (k >= old || !published(i)) {
			gaps[kept++] = i;
			continue;
		}
		apply_late(s, e, i);
	}
	unsigned older = kept - (ngaps - old);

	ngaps = kept;
	return older;
}

/* The batch [from, to) was read, its gaps from gaps[g] on: the older
 * gaps published since are applied, and the batch ends at its first gap
 * published since (see the gaps above).  These reads follow the batch's
 * (acquire loads): a gap still unpublished now has no dependent in it.
 * Returns the batch's new end; *g, where its gaps start in gaps[]. */
static uint64_t settle(struct region_state *s, uint64_t to, unsigned *g)
{
	*g = fill_gaps(s, *g);
	for (unsigned k = *g; k < ngaps; k++)
		if (published(gaps[k])) {
			ngaps = k;	/* gaps[k] starts the next batch */
			return gaps[k];
		}
	return to;
}

void region_log_apply(struct region_state *s)
{
	for (;;) {
		unsigned g = ngaps;
		uint64_t from = ahead, end = batch_end(from), to = settle(s, end, &g);

		if (to > from)
			apply_batch(s, from, to, g);
		ahead = to;
		/* Slots below the first gap may be claimed again. */
		__atomic_store_n(&tail, ngaps ? gaps[0] : ahead, __ATOMIC_RELEASE);
		if (end == from)
			return;
	}
}

bool region_log_pending(void)
{
	return __atomic_load_n(&head, __ATOMIC_ACQUIRE) != __atomic_load_n(&tail, __ATOMIC_ACQUIRE);
}

/* In the child of fork only the forking thread is left: a slot another
 * thread had claimed but not published will never be, so it becomes an
 * empty event instead of a gap for good. */
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
