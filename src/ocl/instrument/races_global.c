/*
 * The race probe's __global accesses read back (races_internal.h), by
 * Oclgrind's rules.  Within a work-group a work-item's __global epoch is
 * the number of barriers with CLK_GLOBAL_MEM_FENCE it had passed: two
 * work-items of the group touching one byte in the same epoch race, one
 * writing, not both atomic, not two stores of the same value.  Nothing
 * orders two work-groups: accesses of one byte by two groups race
 * wherever they are in the kernel, with the same exemptions.
 *
 * Every group sees the same __global bytes, so the logged groups'
 * accesses are gathered first, then expanded to one record per byte
 * (address, entry) and sorted by address, then entry; entries are in
 * group, epoch and log order.  One byte's records are taken in turn
 * with two views of two accesses per kind (ic_seen, as for __local):
 * the current group epoch's, keyed by work-item, and the kernel's, keyed
 * by group.  The verdict does not depend on how the device interleaved
 * the work-items or the groups.  Memory stays bounded: at most
 * MAX_BYTES byte records (16 bytes each); entries past them are counted
 * (`unscanned`), never silently dropped.
 */
#include "ocl/instrument/races_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* 64 MB of records: the whole log (2^20 entries) of 4-byte accesses. */
#define MAX_BYTES ((size_t)1 << 22)

/* A byte of an entry: entry e's byte k, at addr. */
struct rec {
	uint64_t addr;
	uint32_t entry, k;
};

struct ic_global {
	const struct ic_layout *l;
	struct ic_entry *e;
	size_t n, cap;
	size_t bytes;		/* the records the entries make */
	uint64_t unscanned;	/* entries left out: past MAX_BYTES */
};

struct ic_global *ic_global_new(const struct ic_layout *l)
{
	struct ic_global *g = sibyl_xcalloc(1, sizeof(*g));

	g->l = l;
	return g;
}

void ic_global_add(struct ic_global *g, const uint64_t *region, uint64_t group)
{
	size_t n = (size_t)(region[0] < g->l->race_records ? region[0] : g->l->race_records);
	struct ic_entry *e = sibyl_xcalloc(n + 1, sizeof(*e));
	size_t m = ic_race_entries(g->l, region, n, true, group, e);

	qsort(e, m, sizeof(*e), ic_race_by_epoch);
	for (size_t j = 0; j < m; j++) {
		if (g->bytes + e[j].len > MAX_BYTES) {
			g->unscanned++;
			continue;
		}
		if (g->n == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 1024;
			g->e = sibyl_xreallocarray(g->e, g->cap, sizeof(*g->e));
		}
		g->e[g->n++] = e[j];
		g->bytes += e[j].len;
	}
	free(e);
}

static int by_address(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static struct rec *records(const struct ic_global *g)
{
	struct rec *r = sibyl_xreallocarray(NULL, g->bytes + 1, sizeof(*r));
	size_t nr = 0;

	for (size_t i = 0; i < g->n; i++)
		for (uint32_t k = 0; k < g->e[i].len; k++)
			r[nr++] = (struct rec){ g->e[i].addr + k, (uint32_t)i, k };
	qsort(r, nr, sizeof(*r), by_address);
	return r;
}

/* The views of the byte being read: the current group epoch's, the kernel's. */
struct views {
	struct ic_seen in, all;
	uint64_t group, epoch;
	struct ic_pairs within, across;	/* the line pairs found */
};

static void touch(const struct ic_layout *l, struct views *v, const struct ic_entry *e, uint32_t k,
		  struct sibyl_races *out)
{
	unsigned kind = l->race_sites[e->site].kind;
	struct ic_who w = { true, e->site, e->item, e->group, e->item,
			    ic_race_byte(kind, e->value, k) };
	const struct ic_who *x;

	if (e->group != v->group || e->epoch != v->epoch) {
		v->in = (struct ic_seen){ 0 };
		v->group = e->group, v->epoch = e->epoch;
	}
	if ((x = ic_race_touch(&v->in, &w, kind)))
		ic_race_found(l, &v->within, &out->global, x, &w);
	w.key = e->group;
	if ((x = ic_race_touch(&v->all, &w, kind)))
		ic_race_found(l, &v->across, &out->across, x, &w);
}

void ic_global_scan(struct ic_global *g, struct sibyl_races *out)
{
	struct rec *r = records(g);
	struct views v = { .group = UINT64_MAX };

	for (size_t i = 0; i < g->bytes; i++) {
		if (i && r[i].addr != r[i - 1].addr) {	/* the next byte */
			v.in = v.all = (struct ic_seen){ 0 };
			v.group = UINT64_MAX;
		}
		touch(g->l, &v, &g->e[r[i].entry], r[i].k, out);
	}
	out->unscanned = g->unscanned;
	free(v.within.p);
	free(v.across.p);
	free(r);
	free(g->e);
	free(g);
}
