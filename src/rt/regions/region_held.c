/*
 * Each thread's last allocation, held back from the log: the common
 * malloc ... free of one block with no other allocation in between then
 * costs a few stores to the thread's own record, instead of two slots
 * of the shared ring (a compare-and-swap each) and their later
 * application under the lock.  The record is published to the ring
 * (region_log.c) by the thread's next allocation event of any other
 * kind, by a wrapped call of the thread (region_held_flush, before the
 * lookup) and by pthread_create and thread exit (alloc_hooks.c).
 *
 * What this costs elsewhere, and how each case is kept exact:
 *
 *   order    a held block is logged later than it was made.  Its event
 *            carries the ring's head at allocation time; an event on the
 *            same address logged in between (another thread freed the
 *            block, say) makes the late allocation stale, and
 *            region_log_apply drops it.
 *   others   a lookup by another thread misses a block still held (one
 *            thread allocates, another uses): region_held_find reads the
 *            records of all threads and adopts the block, i.e. logs it
 *            itself and marks it so that its owner logs its free instead
 *            of dropping it.  The owner cannot free it concurrently:
 *            the other thread is using it.
 *   signals  a record is open (seq odd) while a hook of its thread
 *            changes it: a signal handler's hooks then log straight to
 *            the ring, and a handler that frees the block being
 *            published leaves its address for the interrupted hook to
 *            log a free again after it (late_free).
 *   threads  records are a fixed table, claimed by a thread at its
 *            first allocation and given back when it ends; a thread that
 *            finds none free logs everything to the ring.
 *   fork     the child has one thread: the blocks the others held are
 *            logged and their records given back.
 */
#include "rt/regions/regions.h"

#include <sched.h>
#include <string.h>

#define HELD_THREADS 128

struct held {
	uint32_t seq;		/* odd while its thread's hook changes it */
	uint32_t owned;		/* claimed by a thread */
	uintptr_t addr;		/* the block held; 0: none */
	uint64_t len;
	uint64_t since;		/* the ring's head when it was allocated */
	uintptr_t adopted;	/* addr when another thread logged it */
	uintptr_t late_free;	/* freed by a signal handler while open */
	struct region_contents c;
};

static struct held table[HELD_THREADS];
static unsigned table_used;	/* records ever claimed: the ones to scan */
static __thread struct held *mine __attribute__((tls_model("initial-exec")));
static __thread bool no_record __attribute__((tls_model("initial-exec")));

static struct held *claim(void)
{
	if (no_record)
		return NULL;
	for (unsigned i = 0; i < HELD_THREADS; i++) {
		uint32_t free_ = 0;

		if (__atomic_compare_exchange_n(&table[i].owned, &free_, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			unsigned used = __atomic_load_n(&table_used, __ATOMIC_RELAXED);

			while (used < i + 1 &&
			       !__atomic_compare_exchange_n(&table_used, &used, i + 1, true,
							    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
				;
			if (mine) {	/* a signal handler claimed one meanwhile */
				__atomic_store_n(&table[i].owned, 0, __ATOMIC_RELEASE);
				return mine;
			}
			return mine = &table[i];
		}
	}
	no_record = true;
	return NULL;
}

/* Readers on other threads see the fields change only between two odd
 * values of seq (a sequence lock with one writer, its own thread). */
static inline void open_(struct held *h)
{
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static __attribute__((noinline, cold)) void log_late_free(struct held *h)
{
	uintptr_t late = h->late_free;

	h->late_free = 0;
	region_ring_append(REGION_FREE, late, 0, NULL, REGION_NOW);
}

static inline void close_(struct held *h)
{
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
	if (__builtin_expect(h->late_free != 0, 0))
		log_late_free(h);
}

/* Open: what h holds goes to the ring, unless another thread did that. */
static inline void publish(struct held *h)
{
	if (h->addr && __atomic_load_n(&h->adopted, __ATOMIC_RELAXED) != h->addr)
		region_ring_append(REGION_ALLOC, h->addr, h->len, &h->c, h->since);
	h->addr = 0;
}

void region_held_flush(void)
{
	struct held *h = mine;

	if (h && h->addr && !(h->seq & 1)) {
		open_(h);
		publish(h);
		close_(h);
	}
}

/* What the memory at addr held when handed out: its first words, and
 * samples over a recycled block once worksize.full is in use. */
static inline void take(struct region_contents *c, uintptr_t addr, uint64_t len, unsigned words)
{
	c->nleft = (uint16_t)words;
	if (words == REGION_LEFT_WORDS)	/* the common case: one fixed copy */
		memcpy(c->left, (const void *)addr, sizeof(c->left));
	else
		for (unsigned i = 0; i < words; i++)
			c->left[i] = ((const uint64_t *)addr)[i];
	c->sampled = words == REGION_LEFT_WORDS && len >= REGION_SAMPLE_MIN &&
		     (c->left[0] | c->left[1]) && __atomic_load_n(&shadow_in_use, __ATOMIC_RELAXED);
	if (__builtin_expect(c->sampled, 0))
		for (unsigned j = 0; j < REGION_SAMPLES; j++)
			c->sample[j] = *(const uint64_t *)region_sample_at(addr, len, j);
}

/* Open: h holds addr from now on. */
static inline void keep(struct held *h, uintptr_t addr, uint64_t len, unsigned words)
{
	h->len = len;
	h->since = region_log_head();
	h->adopted = 0;
	take(&h->c, addr, len, words);
	h->addr = addr;
}

/* No record yet, one in use by the hook a signal interrupted, or one
 * holding a block already. */
static __attribute__((noinline)) void hold_slow(uintptr_t addr, uint64_t len, unsigned words)
{
	struct held *h = mine ? mine : claim();

	if (!h || (h->seq & 1)) {
		struct region_contents c;

		take(&c, addr, len, words);
		region_ring_append(REGION_ALLOC, addr, len, &c, REGION_NOW);
		return;
	}
	open_(h);
	publish(h);
	keep(h, addr, len, words);
	close_(h);
}

/* Small, so that the hooks take it in: the fast path of every malloc. */
void region_hold(uintptr_t addr, uint64_t len, unsigned words)
{
	struct held *h = mine;

	if (__builtin_expect(!h || h->addr || (h->seq & 1), 0)) {
		hold_slow(addr, len, words);
		return;
	}
	open_(h);
	keep(h, addr, len, words);
	close_(h);
}

static __attribute__((noinline)) void release_slow(struct held *h, uintptr_t addr)
{
	if (h && h->addr == addr && (h->seq & 1))
		h->late_free = addr;	/* a handler frees what its thread publishes */
	region_held_flush();
	region_ring_append(REGION_FREE, addr, 0, NULL, REGION_NOW);
}

/* The fast path of every free: the block held, nobody else logged it. */
void region_release(uintptr_t addr)
{
	struct held *h = mine;

	if (__builtin_expect(!h || h->addr != addr || (h->seq & 1) ||
			     __atomic_load_n(&h->adopted, __ATOMIC_RELAXED) == addr, 0)) {
		release_slow(h, addr);
		return;
	}
	open_(h);
	h->addr = 0;
	close_(h);
}

void region_held_thread_end(void)
{
	struct held *h = mine;

	if (!h || (h->seq & 1))
		return;
	region_held_flush();
	mine = NULL;
	no_record = true;	/* what it frees on its way out is logged */
	__atomic_store_n(&h->owned, 0, __ATOMIC_RELEASE);
}

/* h's block, read between two equal even values of seq: 1, 0 when it
 * holds none, -1 when its thread is changing it. */
static int read_held(struct held *h, struct held *out)
{
	uint32_t seq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);

	out->addr = __atomic_load_n(&h->addr, __ATOMIC_RELAXED);
	out->len = __atomic_load_n(&h->len, __ATOMIC_RELAXED);
	out->since = __atomic_load_n(&h->since, __ATOMIC_RELAXED);
	out->c.nleft = __atomic_load_n(&h->c.nleft, __ATOMIC_RELAXED);
	out->c.sampled = __atomic_load_n(&h->c.sampled, __ATOMIC_RELAXED);
	for (unsigned w = 0; w < REGION_LEFT_WORDS; w++)
		out->c.left[w] = __atomic_load_n(&h->c.left[w], __ATOMIC_RELAXED);
	for (unsigned w = 0; w < REGION_SAMPLES; w++)
		out->c.sample[w] = __atomic_load_n(&h->c.sample[w], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || seq != __atomic_load_n(&h->seq, __ATOMIC_RELAXED))
		return -1;
	return out->addr && out->c.nleft <= REGION_LEFT_WORDS;
}

/* One pass over the records: 1 when p's block was found and adopted,
 * -1 when some record was being changed. */
static int adopt_pass(struct region_state *s, uintptr_t p)
{
	unsigned used = __atomic_load_n(&table_used, __ATOMIC_ACQUIRE);
	struct held b;
	int busy = 0;

	for (unsigned i = 0; i < used; i++) {
		struct held *h = &table[i];
		int got = h == mine ? 0 : read_held(h, &b);

		busy |= got < 0;
		if (got <= 0 || p < b.addr || p - b.addr >= b.len)
			continue;
		region_log_apply(s);	/* room in the ring */
		region_ring_append(REGION_ALLOC, b.addr, b.len, &b.c, b.since);
		__atomic_store_n(&h->adopted, b.addr, __ATOMIC_RELAXED);
		region_log_apply(s);
		return 1;
	}
	return -busy;
}

/*
 * Lock held, p in no block: a block another thread holds, adopted (see
 * above).  The program uses p, so the block's thread is not freeing it;
 * but it may be logging it right now (its record is being changed, its
 * event not yet in the ring or not yet applied): then the log is
 * applied again and the records read again, a bounded number of times
 * (that thread may be waiting for this very lock, when the ring is full).
 */
bool region_held_find(struct region_state *s, uintptr_t p)
{
	struct region r;

	for (unsigned tries = 0; tries < 256; tries++) {
		int got = adopt_pass(s, p);

		if (got >= 0)
			return got > 0;
		region_log_apply(s);
		if (region_find(&s->blocks, p, &r))
			return true;
		sched_yield();	/* that thread may have been preempted */
	}
	return false;
}

/*
 * Before a lookup without the lock (cache or memo): some pointer may be
 * in a block another thread holds, which neither knows.  Read before the
 * ring is checked for pending events: a block published meanwhile is
 * then found pending.  A torn read only sends the call to the lock.
 */
bool region_held_covers(const struct sibyl_rt_ws_arg *args, unsigned n)
{
	unsigned used = __atomic_load_n(&table_used, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < used; i++) {
		struct held *h = &table[i];
		uintptr_t addr = __atomic_load_n(&h->addr, __ATOMIC_ACQUIRE);
		uint64_t len = __atomic_load_n(&h->len, __ATOMIC_RELAXED);

		if (h == mine || !addr || __atomic_load_n(&h->adopted, __ATOMIC_RELAXED) == addr)
			continue;
		for (unsigned k = 0; k < n; k++)	/* an array's elements too */
			if ((uintptr_t)args[k].p - addr < len || (args[k].flags & SIBYL_WS_ARRAY))
				return true;
	}
	return false;
}

/* In the child of fork: only this thread is left. */
void region_held_after_fork(void)
{
	for (unsigned i = 0; i < HELD_THREADS; i++) {
		struct held *h = &table[i];

		if (h == mine || !h->owned)
			continue;
		if (h->addr && h->adopted != h->addr)
			region_ring_append(REGION_ALLOC, h->addr, h->len, &h->c, h->since);
		*h = (struct held){ 0 };
	}
}
