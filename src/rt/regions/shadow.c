/*
 * Shadow pages for worksize.full: what the library last saw at an
 * address, kept only for the pages a wrapped call's arguments reached
 * (not for every region, as the paper did).  Each shadowed page costs
 * its 4096-byte copy and 152 bytes of bookkeeping: the page number,
 * whether it can be read, a bitmap of the 8-byte words ever inspected
 * (a word not yet seen has no meaningful copy) and one of the words a
 * call's entry found changed (kept until its exit, for the in-out
 * bytes), plus 8 bytes or less of index per page.
 *
 * Nested wrapped calls (cblas_dgemm calling dgemm_) each have their own
 * view: one set of pages per nesting level, so the inner call's input is
 * what changed since the last inner call, not since its caller's entry.
 *
 * A region's range may run into pages that cannot be read (a mapping
 * reserved PROT_NONE and committed in part): each page is probed once,
 * with process_vm_readv on this very process, which fails instead of
 * faulting.
 *
 * Everything is mapped with raw system calls (MAP_NORESERVE, touched as
 * it fills): no malloc, and no event for the tracker's own mmap hook.
 * Callers hold the tracker's lock.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 4 Mi pages (16 GiB) of shadows at most, in address space only. */
#define MAX_PAGES (1u << 22)

static unsigned char *data;		/* MAX_PAGES shadow pages */
static struct shadow_page *meta;	/* MAX_PAGES entries */
bool shadow_in_use;
static uint32_t used;			/* pages handed out */

/* page number -> index + 1 (0: empty), open addressing, half full at most */
static uint32_t *table;
static uint64_t table_slots;

static void *reserve(uint64_t bytes)
{
	long p = syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p < 0 && p > -4096 ? NULL : (void *)p;
}

static uint64_t hash_of(uintptr_t page, uint64_t slots)
{
	return (page * 0x9e3779b97f4a7c15ull) >> 17 & (slots - 1);
}

static uint32_t *slot_of(uint32_t *t, uint64_t slots, uintptr_t page)
{
	for (uint64_t h = hash_of(page, slots);; h = (h + 1) & (slots - 1))
		if (!t[h] || meta[t[h] - 1].page == page)
			return &t[h];
}

static bool grow_table(void)
{
	uint64_t slots = table_slots ? table_slots * 2 : 4096;
	uint32_t *t = reserve(slots * sizeof(*t));

	if (!t)
		return false;
	for (uint64_t i = 0; i < table_slots; i++)
		if (table[i])
			*slot_of(t, slots, meta[table[i] - 1].page) = table[i];
	if (table)
		syscall(SYS_munmap, table, table_slots * sizeof(*table));
	table = t;
	table_slots = slots;
	return true;
}

static bool ready(void)
{
	if (!data && !(data = reserve((uint64_t)MAX_PAGES * SHADOW_PAGE)))
		return false;
	if (!meta && !(meta = reserve((uint64_t)MAX_PAGES * sizeof(*meta))))
		return false;
	return table || grow_table();
}

/* The key: page number and nesting level together. */
static uintptr_t key_of(uintptr_t page, unsigned level)
{
	return page * SHADOW_LEVELS + (level < SHADOW_LEVELS ? level : SHADOW_LEVELS - 1);
}

static struct shadow_page *find_key(uintptr_t key)
{
	if (!table)
		return NULL;
	uint32_t i = *slot_of(table, table_slots, key);

	return i ? &meta[i - 1] : NULL;
}

/* The last ALLOCATED blocks malloc handed out, recycled or not: for
 * pages no call has reached yet, and for what a block held then. */
#define ALLOCATED 1024
static struct allocated {
	struct region r;
	bool recycled, sampled;
	uint64_t sample[REGION_SAMPLES];
} allocated[ALLOCATED];
static unsigned allocated_next;

static bool overlaps_recycled(uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < ALLOCATED; i++)
		if (allocated[i].recycled && allocated[i].r.start < hi && lo < allocated[i].r.end)
			return true;
	return false;
}

enum block_state shadow_block_state(uintptr_t start, uintptr_t end)
{
	/* The latest block handed out at that place is the live one. */
	for (unsigned k = 1; k <= ALLOCATED && k <= allocated_next; k++) {
		const struct allocated *b = &allocated[(allocated_next - k) % ALLOCATED];

		if (b->r.start != start || b->r.end != end)
			continue;
		if (!b->recycled)
			return BLOCK_FRESH;
		for (unsigned j = 0; b->sampled && j < REGION_SAMPLES; j++)
			if (__atomic_load_n((const uint64_t *)region_sample_at(start, end - start, j),
					    __ATOMIC_RELAXED) != b->sample[j])
				return BLOCK_WRITTEN;
		return BLOCK_LEFTOVERS;
	}
	return BLOCK_UNKNOWN;
}

struct shadow_page *shadow_find(uintptr_t page, unsigned level)
{
	return find_key(key_of(page, level));
}

struct shadow_page *shadow_get(uintptr_t page, unsigned level)
{
	uintptr_t key = key_of(page, level);
	struct shadow_page *s = find_key(key);

	if (s)
		return s;
	if (!ready() || used == MAX_PAGES || ((used + 1) * 2 > table_slots && !grow_table()))
		return NULL;
	s = &meta[used];
	memset(s, 0, sizeof(*s));
	s->recycled = overlaps_recycled(page * SHADOW_PAGE, (page + 1) * SHADOW_PAGE);
	s->page = key;
	s->copy = data + (uint64_t)used * SHADOW_PAGE;
	*slot_of(table, table_slots, key) = ++used;
	return s;
}

bool shadow_read(uintptr_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) == (long)n;
}

static bool probe(uintptr_t page)
{
	char byte;

	return shadow_read(page * SHADOW_PAGE, &byte, 1);
}

bool shadow_readable(struct shadow_page *s)
{
	if (!s->readable)
		s->readable = probe(s->page / SHADOW_LEVELS) ? 1 : -1;
	return s->readable > 0;
}

/* Words [w0, w1) of one page (all levels) become unseen. */
static void forget(struct shadow_page *s, unsigned w0, unsigned w1)
{
	if (w0 == 0 && w1 == SHADOW_WORDS) {
		s->readable = 0;	/* unmapped, perhaps: probe again */
		s->recycled = false;	/* shadow_recycled says if it is */
	}
	for (unsigned w = w0; w < w1; w++)
		s->seen[w / 64] &= ~(1ull << (w % 64));
	s->whole = false;
}

static void forget_page(uintptr_t page, uintptr_t start, uintptr_t end)
{
	uintptr_t base = page * SHADOW_PAGE;
	unsigned w0 = start > base ? (unsigned)((start - base) / 8) : 0;
	unsigned w1 = end < base + SHADOW_PAGE ? (unsigned)((end - base + 7) / 8) : SHADOW_WORDS;

	for (unsigned level = 0; level < SHADOW_LEVELS; level++) {
		struct shadow_page *s = find_key(key_of(page, level));

		if (s)
			forget(s, w0, w1);
	}
}

/* Memory allocated or unmapped at [start, end) is not what the library
 * saw there: allocators hand out recycled memory, and unmapped memory
 * comes back zero-filled.  The pages stay allocated, for reuse. */
/* fn on each page of [start, end) that has shadows (some twice). */
static void each_page(uintptr_t start, uintptr_t end,
		      void (*fn)(uintptr_t page, uintptr_t start, uintptr_t end))
{
	if (!used || end <= start)
		return;
	uintptr_t first = start / SHADOW_PAGE, last = (end - 1) / SHADOW_PAGE;

	/* Huge ranges: walking every shadow is cheaper than every page. */
	if (last - first > used) {
		for (uint32_t i = 0; i < used; i++) {
			uintptr_t page = meta[i].page / SHADOW_LEVELS;

			if (page >= first && page <= last)
				fn(page, start, end);
		}
		return;
	}
	for (uintptr_t p = first; p <= last; p++)
		fn(p, start, end);
}

void shadow_forget(uintptr_t start, uintptr_t end)
{
	each_page(start, end, forget_page);
}

void shadow_seed(uintptr_t addr, const uint64_t *words, unsigned n)
{
	if (!used || addr % 8)
		return;
	for (unsigned i = 0; i < n; i++, addr += 8) {
		uintptr_t page = addr / SHADOW_PAGE;
		unsigned w = (unsigned)(addr % SHADOW_PAGE / 8);

		for (unsigned level = 0; level < SHADOW_LEVELS; level++) {
			struct shadow_page *s = find_key(key_of(page, level));

			if (s && !(s->seen[w / 64] & 1ull << (w % 64))) {
				((uint64_t *)s->copy)[w] = words[i];
			}
		}
	}
}

static void mark_recycled(uintptr_t page, uintptr_t start, uintptr_t end)
{
	(void)start;
	(void)end;
	for (unsigned level = 0; level < SHADOW_LEVELS; level++) {
		struct shadow_page *s = find_key(key_of(page, level));

		if (s)
			s->recycled = true;
	}
}

void shadow_allocated(uintptr_t start, uintptr_t end, const struct region_contents *c)
{
	struct allocated *b = &allocated[allocated_next++ % ALLOCATED];

	b->r = (struct region){ start, end };
	b->recycled = c->nleft && (c->left[0] | c->left[1 % c->nleft]);
	b->sampled = c->sampled;
	memcpy(b->sample, c->sample, sizeof(b->sample));
	if (b->recycled)
		each_page(start, end, mark_recycled);
}

uint64_t shadow_bytes(void)
{
	return (uint64_t)used * (SHADOW_PAGE + sizeof(struct shadow_page)) +
	       table_slots * sizeof(*table);
}
