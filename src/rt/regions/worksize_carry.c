/*
 * A buffer read in parts by successive calls: openssl's cipher BIO reads
 * 8 KiB, then encrypts them 4 KiB per EVP_EncryptUpdate.  The first call
 * finds all 8 KiB changed and counts them; the second finds nothing new.
 * What a call reads starts at its pointer, so when a call points strictly
 * inside a range where an earlier call counted input, and finds nothing
 * changed in its own range since, the input the earlier call counted from
 * that pointer on was this call's: it is added here, and taken off the
 * earlier call by the trace reader, which a carry record tells
 * (docs/formats.md).  The earlier call is the last one measured at the
 * same nesting level on this thread, under the same caller; else the
 * latest at that level on another thread (workers taking parts of one
 * buffer), which may still be running: calls are remembered at entry,
 * where their counted ranges are known.
 *
 * The earlier call's counted bytes are still marked: its entry left the
 * words it found changed in the shadow's `changed` bits, which only the
 * next entry at that level over the same words rewrites.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CARRY_RANGES 8
#define RECENT 32		/* threads x levels remembered */

struct measured {
	const struct sibyl_rt_thread *thread;	/* NULL: empty */
	uint32_t tid;			/* its thread's, as its events file names it */
	unsigned level;
	uint32_t func;
	uint64_t start, caller;	/* start_tsc of the call (0: running) and of its caller */
	uintptr_t sp;		/* its wrapper's stack pointer: which call is running */
	uint64_t used;		/* when last remembered or used (a counter) */
	uint64_t when;		/* when remembered (the same counter) */
	unsigned n;
	struct region r[CARRY_RANGES];	/* where its entry counted input */
};

/* Not per thread (static TLS is scarce): one table under the tracker's
 * lock, which every caller holds; the least recently used entry goes. */
static struct measured recent[RECENT];
static uint64_t clock_now;

static uint32_t first_thread;
static bool other_threads;	/* more than one thread measured */

/* This thread's id, read once: it tells threads apart (a new thread may
 * get an exited one's thread state at the same address). */
static __thread uint32_t my_tid __attribute__((tls_model("initial-exec")));

static inline uint32_t self_tid(void)
{
	if (!my_tid) {
		my_tid = (uint32_t)syscall(SYS_gettid);
		/* Until a second thread measures, no other thread's call can
		 * be a candidate: one-thread programs skip the search. */
		if (!first_thread)
			first_thread = my_tid;
		other_threads |= my_tid != first_thread;
	}
	return my_tid;
}

/* Where this thread's entries were last: tried first (they may have
 * been reused by another thread since). */
static __thread struct measured *mine[SHADOW_LEVELS] __attribute__((tls_model("initial-exec")));

/* The entry of `t` at `level`, NULL when none; make: the one to reuse. */
static struct measured *last_of(const struct sibyl_rt_thread *t, unsigned level, bool make)
{
	struct measured *m = mine[level], *old = &recent[0];
	uint32_t tid = self_tid();

	if (m && m->tid == tid && m->level == level)
		return m;	/* used: bumped when remembered */
	for (unsigned i = 0; i < RECENT; i++) {
		if (recent[i].tid == tid && recent[i].level == level) {
			/* Perhaps an exited thread's whose tid this one got:
			 * its thread state is this one's now. */
			recent[i].thread = t;
			return mine[level] = &recent[i];
		}
		if (recent[i].used < old->used)
			old = &recent[i];
	}
	if (!make)
		return NULL;
	*old = (struct measured){ .thread = t, .tid = tid, .level = level, .used = ++clock_now };
	return mine[level] = old;
}

/* The level of the call in progress, or SHADOW_LEVELS when too deep. */
static unsigned level_of(const struct sibyl_rt_thread *t)
{
	unsigned d = t->depth - 1;

	return d < SHADOW_LEVELS && d < SIBYL_RT_SHADOW ? d : SHADOW_LEVELS;
}

static uint64_t caller_start(const struct sibyl_rt_thread *t)
{
	unsigned d = t->depth - 1;

	return d >= 1 && d - 1 < SIBYL_RT_SHADOW ? t->shadow[d - 1].start : 0;
}

/* 8 bytes per word of [lo, hi) marked changed at `level`'s last entry
 * and not forgotten since. */
static uint64_t marked_bytes(unsigned level, uintptr_t lo, uintptr_t hi)
{
	uint64_t bytes = 0;

	for (uintptr_t w = lo & ~(uintptr_t)7; w < hi; w += 8) {
		struct shadow_page *s = shadow_find(w / SHADOW_PAGE, level);
		unsigned k = (unsigned)(w % SHADOW_PAGE / 8);

		if (!s) {
			w = (w / SHADOW_PAGE + 1) * SHADOW_PAGE - 8;	/* the next page */
			continue;
		}
		/* Forgotten since (the block was freed, the memory handed out
		 * again): not the same buffer, whatever the marks say. */
		uint64_t marked = s->changed[k / 64] & s->seen[k / 64];

		if (!(k % 64) && !marked && w + 512 <= hi) {
			w += 512 - 8;	/* 64 unmarked words */
			continue;
		}
		bytes += marked >> (k % 64) & 1 ? 8 : 0;
	}
	return bytes;
}

/* The bytes m counted from lo on, when lo lies strictly inside one of
 * its ranges. */
static uint64_t counted_from(const struct measured *m, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < m->n; i++) {
		const struct region *r = &m->r[i];

		if (lo > r->start && lo < r->end)
			return marked_bytes(m->level, lo, hi < r->end ? hi : r->end);
	}
	return 0;
}

/* m's start_tsc; m may still run on its thread: then its frame says,
 * once the wrapper has stamped it.  Only while the thread exists (a call
 * left by longjmp never finishes), and never by a plain load: the thread
 * may exit meanwhile, its memory unmapped, and a process_vm_readv of it
 * fails where a load would crash the program. */
static uint64_t start_of(const struct measured *m)
{
	struct sibyl_rt_frame f;

	if (m->start)
		return m->start;
	if (syscall(SYS_tgkill, getpid(), (pid_t)m->tid, 0) ||
	    !shadow_read((uintptr_t)&m->thread->shadow[m->level], &f, sizeof(f)))
		return 0;
	return f.sp == m->sp ? f.start : 0;	/* else finished since, or left */
}

/* The latest call at `level` of a thread other than t that counted input
 * around lo. */
static const struct measured *other_thread(unsigned level, uintptr_t lo)
{
	const struct measured *best = NULL;

	for (unsigned i = 0; i < RECENT; i++) {
		const struct measured *m = &recent[i];
		bool around = false;

		for (unsigned k = 0; k < m->n && !around; k++)
			around = lo > m->r[k].start && lo < m->r[k].end;
		if (m->thread && m->tid != self_tid() && m->level == level && around &&
		    (!best || m->when > best->when))
			best = m;
	}
	return best;
}

struct carry_ctx carry_begin(const struct sibyl_rt_thread *t)
{
	unsigned level = level_of(t);
	const struct measured *last = level < SHADOW_LEVELS ? last_of(t, level, false) : NULL;

	/* Only a finished call of this thread under the same caller. */
	if (last && (!last->start || last->caller != caller_start(t)))
		last = NULL;
	return (struct carry_ctx){ level, last };
}

static uint32_t tid_in_record(const struct measured *from)
{
	return from->tid == self_tid() ? 0 : from->tid;
}

/* One carry record names one earlier call: a group whose part another
 * call counted is not carried, once a group before it carried from one. */
static bool carry_fits(const struct sibyl_rt_ws_full *st, const struct measured *from,
		       uint64_t start)
{
	return !st->carry || (from && st->carry_func == from->func && st->carry_start == start &&
			      st->carry_tid == tid_in_record(from));
}

static uint64_t candidate(const struct carry_ctx *c, uintptr_t lo, uintptr_t hi,
			  const struct measured **from, uint64_t *start)
{
	const struct measured *last = c->last;
	uint64_t bytes = 0;

	*from = NULL;
	if (last && (bytes = counted_from(last, lo, hi))) {
		*start = last->start;
		return *from = last, bytes;
	}
	last = c->level < SHADOW_LEVELS && other_threads ? other_thread(c->level, lo) : NULL;
	if (last && (*start = start_of(last)) && (bytes = counted_from(last, lo, hi)))
		*from = last;
	return bytes;
}

uint64_t carry_candidate(const struct carry_ctx *c, const struct sibyl_rt_ws_full *st,
			 uintptr_t lo, uintptr_t hi, const struct measured **from, uint64_t *start)
{
	uint64_t bytes = candidate(c, lo, hi, from, start);

	/* Another call's part, once a part was carried: counted as without
	 * a carry (it stays the other call's input). */
	return bytes && carry_fits(st, *from, *start) ? bytes : 0;
}

void carry_take(struct sibyl_rt_ws_full *st, uint64_t bytes, const struct measured *from,
		uint64_t start)
{
	if (!bytes || !from || !carry_fits(st, from, start))
		return;
	st->carry += bytes;
	st->carry_func = from->func;
	st->carry_start = start;
	st->carry_tid = tid_in_record(from);
}

void carry_remember(const struct sibyl_rt_thread *t, const struct sibyl_rt_ws_full *st)
{
	unsigned level = level_of(t);

	if (level == SHADOW_LEVELS)
		return;
	struct measured *m = last_of(t, level, true);

	m->when = m->used = ++clock_now;
	m->func = t->shadow[level].func;
	m->start = 0;		/* stamped after entry: carry_finish */
	m->sp = t->shadow[level].sp;
	m->caller = caller_start(t);
	m->n = 0;
	for (unsigned i = 0; i < st->n && m->n < CARRY_RANGES; i++)
		if (st->counted >> i & 1)
			m->r[m->n++] = (struct region){ st->r[i].lo, st->r[i].hi };
}

void carry_finish(const struct sibyl_rt_thread *t)
{
	unsigned level = level_of(t);
	struct measured *m = level < SHADOW_LEVELS ? last_of(t, level, false) : NULL;

	if (m && m->sp == t->shadow[level].sp)
		m->start = t->shadow[level].start;
}

/* The child's one thread is the one that forked, with a tid of its own;
 * the calls remembered are the parent's, in the parent's trace. */
void carry_after_fork(void)
{
	my_tid = 0;
	first_thread = 0;
	other_threads = false;
	for (unsigned i = 0; i < RECENT; i++)
		recent[i] = (struct measured){ 0 };
	for (unsigned l = 0; l < SHADOW_LEVELS; l++)
		mine[l] = NULL;
}
