/*
 * The region tracker (paper IV.C.1): which memory regions the traced
 * program owns, so that worksize.fast can map a pointer argument to the
 * region it points into.  Two kinds of regions, kept in two ordered sets:
 *
 *   blocks  what the program allocated (malloc family, mmap/mremap),
 *           learned from the interposed functions of alloc_hooks.c;
 *   areas   every writable mapping of /proc/self/maps (static data,
 *           the brk heap, every thread's stack, anonymous mappings),
 *           re-read when a lookup misses after a dlopen or a new thread,
 *           or, at a limited rate, outside read-only data.
 *
 * A pointer is looked up in the blocks first, then in the areas.  The
 * allocation hooks only keep the thread's last block (region_held.c) or
 * append an event to a lock-free log (region_log.c); the log is applied
 * to the ordered sets by whoever looks a pointer up next, under one lock
 * (region_lookup.c).
 *
 * All of it is libsibyl-regions.so, a preload library of its own: only
 * programs traced with a wrapper that wants automatic work sizes get
 * their allocator's entry points replaced (docs/worksize.md).  It uses
 * libsibyl-rt.so's per-thread guard (sibyl_rt_self) and nothing else of
 * the runtime.
 */
#ifndef SIBYL_RT_REGIONS_H
#define SIBYL_RT_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sibyl/wrap_rt.h>

/* Built with hidden visibility: these are the library's only exports. */
#define REGIONS_EXPORT __attribute__((visibility("default")))

/* ---- region_tree.c: an ordered set of disjoint [start, end) ranges ---- */
struct region_tree {
	uint32_t root;
	uint64_t count;
};

struct region {
	uintptr_t start, end;
};

/* Insert [start, end), replacing any range that overlaps it.  False when
 * the node pool cannot grow (address space exhausted). */
bool region_insert(struct region_tree *t, uintptr_t start, uintptr_t end);
/* Remove the range starting exactly at start (a freed block); false
 * when there was none. */
bool region_erase(struct region_tree *t, uintptr_t start);
/* Remove [start, end) from every range (munmap): ranges inside go,
 * ranges across the edges are trimmed (split in two when needed). */
bool region_cut(struct region_tree *t, uintptr_t start, uintptr_t end);
/* The range holding p; false when none does. */
bool region_find(const struct region_tree *t, uintptr_t p, struct region *out);
/* Some range starts in [lo, hi). */
bool region_starts_within(const struct region_tree *t, uintptr_t lo, uintptr_t hi);
void region_clear(struct region_tree *t);
/* Bytes the node pool holds (the tracker's memory cost). */
uint64_t region_pool_bytes(void);

/* ---- region_log.c: allocation events, appended lock-free ---- */
enum region_op { REGION_ALLOC = 1, REGION_FREE, REGION_MAP, REGION_UNMAP };
struct region_state;

/* Called by the hooks (events other than the malloc family's blocks and
 * their frees).  Never blocks; an event that cannot be stored is
 * counted, and the tracker then stops following pointer arrays. */
void region_log(enum region_op op, uintptr_t addr, uint64_t len);
/* An allocation whose contents are undefined (malloc, not calloc): its
 * first `words` words (REGION_LEFT_WORDS at most) are what the allocator
 * left there (glibc's free-list links), kept so that worksize.full does
 * not take them for data the program wrote (shadow_seed). */
#define REGION_LEFT_WORDS 4
/* A block of recycled memory (its first words not zero) of
 * REGION_SAMPLE_MIN bytes or more, while worksize.full is in use: what
 * REGION_SAMPLES words spread over it held when it was handed out, so
 * that worksize.full can tell whether the program wrote it since
 * (shadow_block_written). */
#define REGION_SAMPLES 4
#define REGION_SAMPLE_MIN 128
static inline uintptr_t region_sample_at(uintptr_t addr, uint64_t len, unsigned j)
{
	return addr + len / 8 * (j + 1) / (REGION_SAMPLES + 1) * 8;
}

/* What an allocation's memory held when it was handed out. */
struct region_contents {
	uint16_t nleft;		/* words in left[] */
	uint16_t sampled;	/* sample[] holds REGION_SAMPLES words */
	uint64_t left[REGION_LEFT_WORDS];	/* at addr: what the allocator left */
	uint64_t sample[REGION_SAMPLES];	/* at region_sample_at() */
};
/* The ring's head: slots claimed so far. */
uint64_t region_log_head(void);
/* An event into the ring as it is, `since` being the head when it
 * happened (REGION_NOW: now); c: NULL, or an allocation's contents. */
#define REGION_NOW UINT64_MAX
void region_ring_append(enum region_op op, uintptr_t addr, uint64_t len,
			const struct region_contents *c, uint64_t since);

/* Apply every complete event, in order, to the sets (lock held). */
void region_log_apply(struct region_state *s);
/* Some event is logged and not yet applied. */
bool region_log_pending(void);
void region_log_after_fork(void);

/* ---- region_held.c: each thread's last allocation, not yet logged ---- */
/* A block of the malloc family (calloc: words 0), and its free. */
void region_hold(uintptr_t addr, uint64_t len, unsigned words);
void region_release(uintptr_t addr);
/* Log what this thread holds (before its lookups and other events). */
void region_held_flush(void);
/* Lock held, log applied, p in no block: the block another thread
 * holds, in *out (not logged: never to be cached); false when none. */
bool region_held_find(struct region_state *s, uintptr_t p, struct region *out);
/* Some pointer argument may be in a block another thread holds: the
 * cache and the memo cannot answer (called before region_cache_usable). */
bool region_held_covers(const struct sibyl_rt_ws_arg *args, unsigned n);
/* The thread ends: its record is given back. */
void region_held_thread_end(void);
void region_held_after_fork(void);

/* ---- region_maps.c ---- */
/* Re-read /proc/self/maps into `areas` (writable mappings) and
 * `readonly` (mappings readable and not writable).  Uses no stdio and no
 * malloc: it runs inside wrapped calls, signal handlers' included.
 * False when the maps cannot be opened: both sets are left as they were. */
bool region_maps_read(struct region_tree *areas, struct region_tree *readonly);
/* Objects loaded plus objects unloaded so far (dl_iterate_phdr). */
uint64_t region_maps_dl_generation(void);

/* ---- region_lookup.c ---- */
struct region_state {
	struct region_tree blocks, areas;
	struct region_tree readonly;	/* the other readable mappings, when read */
	uint64_t version;		/* bumped when either set changes */
	uint64_t areas_generation;	/* generation the areas were read at */
	int64_t reread_ns;		/* the rate of re-reads on a miss (region_lookup.c) */
	bool areas_read;
};

/* Events that could not be logged (the log was full and busy). */
extern uint64_t regions_lost;
/* Threads created so far (pthread_create hook): the maps changed. */
extern uint64_t regions_threads;

/* The one lock; taken with the thread's in_runtime guard set. */
void region_lock(void);
void region_unlock(void);
/* This thread holds it (a signal handler interrupted a lookup). */
bool region_lock_held(void);
/* Lock held: the region holding p (blocks first, then areas, re-reading
 * the maps once when p is in neither and they may have changed).
 * *is_block tells which set answered. */
bool region_lookup(struct region_state *s, uintptr_t p, struct region *out, bool *is_block);
struct region_state *region_state(void);

/* ---- region_cache.c: what this thread found last ---- */
/* The cache may answer without the lock: no event is pending and the
 * sets have not changed since it was filled. */
bool region_cache_usable(const struct region_state *s);
bool region_cache_find(uintptr_t p, struct region *out, bool *is_block);
/* Lock held: forget what was found in sets that have changed since. */
void region_cache_sync(const struct region_state *s);
void region_cache_add(const struct region *r, bool is_block);
/* The caller frame size last found for this return address. */
bool region_cache_frame(uintptr_t return_address, uintptr_t *size);
void region_cache_set_frame(uintptr_t return_address, uintptr_t size);

/* This thread's stack mapping ({0, 0} until found). */
struct region *region_cache_stack(void);

/* Pointer arguments a call site's memo (site_memo.c) and the cache's
 * one-pass lookup take at most. */
#define MEMO_ARGS 8

/* With the cache usable: the region of each pointer argument, in one
 * pass, when every one is in the caller's frame, the stack or the cache
 * and none is an array ({0, 0} for pointers below 4096). */
bool region_cache_where(const struct sibyl_rt_ws_arg *args, unsigned n, uintptr_t frame,
			uintptr_t return_address, struct region *where);

/* ---- worksize_fast.c ---- */
/* A group of pointers into one region (paper IV.C.1): it stands for
 * [min, end), end being the region's unless every pointer of the group
 * points to a struct of known size (then the end of the last struct). */
struct ws_group {
	struct region r;
	uintptr_t min, end;	/* end: of the region, or of the structs pointed to */
	bool is_const;		/* some pointer of the group is to const */
	bool writable;		/* some pointer of the group is not */
};

#define WS_MAX_GROUPS 64

/* Lock held, log applied: the groups of a call's pointer arguments
 * (WS_MAX_GROUPS at most); *unknown counts pointers into no region. */
unsigned ws_groups_locked(const struct sibyl_rt_ws_arg *args, unsigned n, uintptr_t frame,
			  uintptr_t ret, struct ws_group *out, uint32_t *unknown);

/* The sizes the groups stand for (paper IV.C.1). */
void ws_sizes_of(const struct ws_group *g, unsigned ngroups, uint32_t unknown,
		 struct sibyl_rt_ws_sizes *out);

/* ---- site_memo.c: what the last call from a site found ---- */
/* A call's pointer arguments were found in where[i] ({0, 0}: in no
 * region), the sets being at `version`: remembered for the next call
 * from the same site (not when an argument is an array). */
void site_memo_fill(uint64_t version, uintptr_t return_address, uintptr_t frame,
		    const struct sibyl_rt_ws_arg *args, unsigned n, const struct region *where);
/* The sets at `version`, nothing pending: the groups of a call from the
 * memo's site, frame and argument types whose pointers each lie where
 * the same argument's did; g has room for MEMO_ARGS. */
bool site_memo_groups(uint64_t version, uintptr_t return_address, uintptr_t frame,
		      const struct sibyl_rt_ws_arg *args, unsigned n, struct ws_group *g,
		      unsigned *ngroups, uint32_t *unknown);
/* The same, summed into sizes. */
bool site_memo_sizes(uint64_t version, uintptr_t return_address, uintptr_t frame,
		     const struct sibyl_rt_ws_arg *args, unsigned n, struct sibyl_rt_ws_sizes *out);

/* ---- shadow.c: what the library last saw (worksize.full) ---- */
#define SHADOW_PAGE 4096
#define SHADOW_WORDS (SHADOW_PAGE / 8)
#define SHADOW_LEVELS 4		/* nesting levels with views of their own */

struct shadow_page {
	uintptr_t page;		/* address / SHADOW_PAGE * SHADOW_LEVELS + level */
	unsigned char *copy;
	int readable;		/* 0: not probed yet, 1: yes, -1: no (PROT_NONE) */
	bool wp_synced;		/* every seen word compared while the page was
				   write-protected (shadow_wp.c) */
	bool recycled;		/* part of a malloc block of recycled memory:
				   unseen words may be leftovers */
	bool whole;		/* every word seen (seen[] all ones) */
	bool marked;		/* some changed[] bit may be set */
	uint64_t seen[SHADOW_WORDS / 64];	/* bit w: word w of copy is meaningful */
	uint64_t changed[SHADOW_WORDS / 64];	/* bit w: the entry of the call in progress found word w changed */
};

/* worksize.full has been used: allocations forget what was seen. */
extern bool shadow_in_use;
/* Lock held: the page's shadow for calls nested `level` deep, made
 * (nothing seen) if needed; NULL when the shadow memory is exhausted. */
struct shadow_page *shadow_get(uintptr_t page, unsigned level);
/* Lock held: the page can be read (probed once, without faulting). */
bool shadow_readable(struct shadow_page *s);
/* Lock held: [start, end) was allocated or unmapped; what was seen there
 * is forgotten. */
void shadow_forget(uintptr_t start, uintptr_t end);
/* Lock held: the n words at addr (8-aligned, in one page or two) were
 * left there by the allocator: what the library saw there before, as
 * far as the unseen words of every level's shadow are concerned. */
void shadow_seed(uintptr_t addr, const uint64_t *words, unsigned n);
/* Lock held: malloc handed out [start, end), c being what the memory
 * held then.  From recycled memory (what it left at the start was not
 * zero), unseen words there may be an earlier buffer's data, not the
 * program's input (until the pages are allocated whole again from fresh
 * memory or unmapped). */
void shadow_allocated(uintptr_t start, uintptr_t end, const struct region_contents *c);
/* Lock held: what the block [start, end) holds besides what the library
 * saw, as far as the last blocks handed out tell: unknown (not among
 * them), fresh memory, an earlier buffer's leftovers, or words the
 * program wrote since (its samples changed). */
enum block_state { BLOCK_UNKNOWN, BLOCK_FRESH, BLOCK_LEFTOVERS, BLOCK_WRITTEN };
enum block_state shadow_block_state(uintptr_t start, uintptr_t end);
/* Lock held: the page's shadow for `level`, NULL when it has none. */
struct shadow_page *shadow_find(uintptr_t page, unsigned level);
/* n bytes at addr of this process, into buf; false, not a fault, when
 * they are not all mapped (process_vm_readv). */
bool shadow_read(uintptr_t addr, void *buf, size_t n);
/* The shadows' memory (copies, bookkeeping and index). */
uint64_t shadow_bytes(void);

/* ---- worksize_carry.c: a buffer read in parts by successive calls ---- */
struct measured;
struct carry_ctx {
	unsigned level;			/* SHADOW_LEVELS: too deep */
	const struct measured *last;	/* of this thread, at this level, same caller */
};
/* Lock held, at entry: what the candidates of this call's groups need. */
struct carry_ctx carry_begin(const struct sibyl_rt_thread *t);
/* Before the entry pass over a group's [lo, hi): the input an earlier
 * call counted from lo on, when lo lies strictly inside one of its
 * ranges: the last call measured at this level on this thread with the
 * same caller, else the latest at this level on another thread.
 * *from: that call (NULL: none), *start: its start_tsc.  0 when st
 * carries from another call already: one source per call. */
uint64_t carry_candidate(const struct carry_ctx *c, const struct sibyl_rt_ws_full *st,
			 uintptr_t lo, uintptr_t hi, const struct measured **from, uint64_t *start);
/* Those bytes were this call's: into st (input, and whose they were). */
void carry_take(struct sibyl_rt_ws_full *st, uint64_t bytes, const struct measured *from,
		uint64_t start);
/* At the end of entry: this call is now the last measured at its level
 * on its thread, for calls on any thread (it may still run meanwhile). */
void carry_remember(const struct sibyl_rt_thread *t, const struct sibyl_rt_ws_full *st);
/* At exit: its start_tsc, stamped since entry. */
void carry_finish(const struct sibyl_rt_thread *t);
/* In a child after fork: the parent's threads and calls are not its own. */
void carry_after_fork(void);

/* ---- shadow_wp.c: pages that cannot have changed ---- */
#define WP_MIN_PAGES 64
#define WP_MAX_PAGES 4096
/* The pages [lo, hi) touches: one formula for the caller's pre-check
 * and shadow_wp_clean's own. */
static inline uintptr_t wp_pages(uintptr_t lo, uintptr_t hi)
{
	return (hi + SHADOW_PAGE - 1) / SHADOW_PAGE - lo / SHADOW_PAGE;
}
/* Lock held: for the pages of [lo, hi) from lo's on (WP_MAX_PAGES at
 * most), bit i of clean[WP_MAX_PAGES / 64] set when page i is still
 * write-protected: not written since its protection began.  False when
 * nothing is known: compare every page. */
bool shadow_wp_clean(uintptr_t lo, uintptr_t hi, uint64_t *clean);
void shadow_wp_after_fork(void);

/* ---- stack_frame.c ---- */
/* The size of the frame of the function that called a wrapper, from
 * the wrapper's return address (lock held); 0 when it cannot be known. */
uintptr_t stack_caller_frame_size(uintptr_t wrapper_cfa, uintptr_t return_address);

#endif
