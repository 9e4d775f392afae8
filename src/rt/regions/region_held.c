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
 *            records of all threads and answers with the block, without
 *            logging it.  Only the owner ever logs its block, so a block
 *            it frees meanwhile is never left in the sets (an earlier
 *            version logged it from the reader, and a free racing with
 *            that was lost: a freed block stayed live).
 *   signals  a hook opens its record (seq odd) before it looks at it: a
 *            signal handler's hooks then find it open (or busy, below)
 *            and log straight to the ring, and the interrupted hook finds
 *            the record as it left it.  A handler that frees the block
 *            being published logs its free after or before the
 *            allocation; before, the allocation is stale (above).
 *   publish  the block stays in the record, readable (seq even, busy
 *            keeping the handlers' hooks away), until its event is in
 *            the ring: a thread preempted in between once left readers
 *            finding its record open, and their lookups, after a few
 *            dozen tries, missed the block.
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
	union {
		struct {
			uint32_t seq;	/* odd while its thread's hook changes it */
			uint32_t busy;	/* its thread's hook logs the block held */
		};
		uint64_t state;		/* both, for one test */
	};
	uint32_t owned;		/* claimed by a thread */
	uintptr_t addr;		/* the block held; 0: none */
	uint64_t len;
	uint64_t since;		/* the ring's head when it was allocated */
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

/* seq + 1 in one instruction: a signal handler's hooks on this thread
 * (the only other writer) come before or after it, never inside it, so
 * seq never goes back to a value a reader saw. */
static inline void bump(struct held *h)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("addl $1, %0" : "+m"(h->seq) : : "memory");
#else
	__atomic_fetch_add(&h->seq, 1, __ATOMIC_RELAXED);
#endif
}

/* Readers on other threads see the fields change only between two odd
 * values of seq (a sequence lock with one writer, its own thread).
 * False, and nothing done, when a hook this signal interrupted has it
 * open or busy already. */
#define IN_USE ((uint64_t)UINT32_MAX << 32 | 1)	/* busy, or seq odd */

static inline bool open_(struct held *h)
{
	if (__atomic_load_n(&h->state, __ATOMIC_RELAXED) & IN_USE)
		return false;
	bump(h);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return true;
}

static inline void close_(struct held *h)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	bump(h);
}

/* Open, holding a block: it goes to the ring, and h is open again
 * after, empty.  Readers find the block in h until its event is in the
 * ring. */
static __attribute__((noinline)) void publish(struct held *h)
{
	__atomic_store_n(&h->busy, 1, __ATOMIC_RELAXED);
	close_(h);
	region_ring_append(REGION_ALLOC, h->addr, h->len, &h->c, h->since);
	bump(h);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->addr = 0;
	__atomic_store_n(&h->busy, 0, __ATOMIC_RELAXED);
}

void region_held_flush(void)
{
	struct held *h = mine;

	if (h && h->addr && open_(h)) {
		if (h->addr)	/* a handler may have logged it meanwhile */
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
	/* worksize.full in use first: without it, one test. */
	c->sampled = __atomic_load_n(&shadow_in_use, __ATOMIC_RELAXED) && words == REGION_LEFT_WORDS &&
		     len >= REGION_SAMPLE_MIN && (c->left[0] | c->left[1]);
	if (__builtin_expect(c->sampled, 0))
		for (unsigned j = 0; j < REGION_SAMPLES; j++)
			c->sample[j] = *(const uint64_t *)region_sample_at(addr, len, j);
}

/* Open: h holds addr from now on. */
static inline void keep(struct held *h, uintptr_t addr, uint64_t len, unsigned words)
{
	h->len = len;
	h->since = region_log_head();
	take(&h->c, addr, len, words);
	h->addr = addr;
}

/* No record yet, or one in use by the hook a signal interrupted: the
 * block goes to the ring. */
static __attribute__((noinline)) void hold_slow(uintptr_t addr, uint64_t len, unsigned words)
{
	struct held *h = mine ? mine : claim();

	if (h && open_(h)) {
		if (h->addr)
			publish(h);
		keep(h, addr, len, words);
		close_(h);
		return;
	}
	struct region_contents c;

	take(&c, addr, len, words);
	region_ring_append(REGION_ALLOC, addr, len, &c, REGION_NOW);
}

/* Open, holding a block: it is logged, and h holds addr instead. */
static __attribute__((noinline)) void hold_instead(struct held *h, uintptr_t addr, uint64_t len,
						   unsigned words)
{
	publish(h);
	keep(h, addr, len, words);
	close_(h);
}

/* The fast path of every malloc: a few stores, and no stack frame (the
 * other cases are tail calls).  The record is opened before it is read,
 * so a handler's hooks between the two cannot change what this one then
 * overwrites. */
void region_hold(uintptr_t addr, uint64_t len, unsigned words)
{
	struct held *h = mine;

	if (__builtin_expect(!h || !open_(h), 0)) {
		hold_slow(addr, len, words);
		return;
	}
	if (__builtin_expect(h->addr != 0, 0)) {
		hold_instead(h, addr, len, words);
		return;
	}
	keep(h, addr, len, words);
	close_(h);
}

/* Open, not holding addr: what it holds and addr's free are logged. */
static __attribute__((noinline)) void release_other(struct held *h, uintptr_t addr)
{
	if (h->addr)
		publish(h);
	close_(h);
	region_ring_append(REGION_FREE, addr, 0, NULL, REGION_NOW);
}

/* The fast path of every free: the block held cancels its allocation;
 * any other free is logged after what the record holds. */
void region_release(uintptr_t addr)
{
	struct held *h = mine;

	if (__builtin_expect(!h || !open_(h), 0)) {
		region_ring_append(REGION_FREE, addr, 0, NULL, REGION_NOW);
		return;
	}
	if (__builtin_expect(h->addr != addr, 0)) {
		release_other(h, addr);
		return;
	}
	h->addr = 0;
	close_(h);
}

void region_held_thread_end(void)
{
	struct held *h = mine;

	if (!h || (__atomic_load_n(&h->state, __ATOMIC_RELAXED) & IN_USE))
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

	out->busy = __atomic_load_n(&h->busy, __ATOMIC_RELAXED);
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

/* One pass over the records: 1 with *out when p lies in a block another
 * thread holds, -1 when some record was being changed.  A block being
 * published may be in the ring already, and freed since: the block of
 * another record, if any, is the live one. */
static int held_pass(uintptr_t p, struct region *out)
{
	unsigned used = __atomic_load_n(&table_used, __ATOMIC_ACQUIRE);
	struct held b;
	int busy = 0, found = 0;

	for (unsigned i = 0; i < used; i++) {
		struct held *h = &table[i];
		/* Its own record too: a handler may have interrupted the
		 * publishing of the block it looks up. */
		int got = h == mine && (h->seq & 1) ? 0 : read_held(h, &b);

		busy |= got < 0;
		if (got > 0 && p >= b.addr && p - b.addr < b.len) {
			*out = (struct region){ b.addr, b.addr + b.len };
			if (!b.busy)
				return 1;
			found = 1;
		}
	}
	return found ? 1 : -busy;
}

/* A record being changed is read again this many times at most (its
 * thread may be logging p's block at that moment, or be waiting for this
 * very lock with the ring full: no unbounded wait). */
#define HELD_TRIES 64

/*
 * Lock held, p in no block: the block another thread holds (see above),
 * answered from its record and not logged, so *out is for this lookup
 * only, never to be kept by the cache.
 */
bool region_held_find(struct region_state *s, uintptr_t p, struct region *out)
{
	for (unsigned tries = 0; tries < HELD_TRIES; tries++) {
		int got = held_pass(p, out);

		if (got > 0)
			return true;
		/* Its thread may have logged it since the log was applied. */
		region_log_apply(s);
		if (region_find(&s->blocks, p, out))
			return true;
		if (got == 0)
			return false;
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

		if (!addr)
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
		if (h->addr)
			region_ring_append(REGION_ALLOC, h->addr, h->len, &h->c, h->since);
		*h = (struct held){ 0 };
	}
}
