/*
 * Private to the race probe's analysis (races_scan.c: __local memory,
 * one work-group at a time; races_global.c: __global memory, within and
 * across the logged work-groups): what both keep of a byte's accesses
 * and the rule that says when two of them race.
 */
#ifndef SIBYL_OCL_RACES_INTERNAL_H
#define SIBYL_OCL_RACES_INTERNAL_H

#include "ocl/instrument/instrument_internal.h"

/* Bytes one access may cover: a memcpy of more is taken as this long. */
#define IC_RACE_MAX_SPAN ((uint64_t)1 << 20)

/* Open addressing, u64 -> index into a growing array of values. */
struct ic_map {
	uint64_t *keys;
	size_t *idx;		/* SIZE_MAX: empty */
	size_t cap, n;
};

/* The index of key k; a new one (m->n before) when absent. */
size_t ic_map_get(struct ic_map *m, uint64_t k, bool *fresh);
void ic_map_free(struct ic_map *m);

/* A logged access: bytes at addr, by a work-item (SIBYL_RACE_GROUP: the
 * group's async copy) of a group, in its epoch, seq-th in the log. */
struct ic_entry {
	uint64_t addr, item, group, len, epoch, seq, value;
	unsigned site;
};

/* A group's entries (region: its count and entries, n of them read) of
 * __global memory or of __local, their epochs counted (__local: every
 * barrier; __global: those with a global fence) and barriers dropped,
 * into e (room for n); their number.  In log order: sort them with
 * ic_race_by_epoch. */
size_t ic_race_entries(const struct ic_layout *l, const uint64_t *region, size_t n, bool global,
		       uint64_t group, struct ic_entry *e);
int ic_race_by_epoch(const void *a, const void *b);

/* What a store of `kind` with `value` (its entry's) wrote at its byte k,
 * for comparing stores: 0-255 the byte, above a fingerprint of a 9-16
 * byte store's value and k (equal for equal stores at one address; two
 * different values agree once in 2^30), -1 unknown (not a store). */
int ic_race_byte(unsigned kind, uint64_t value, uint64_t k);

/* An access of one byte: its site, its work-item (SIBYL_RACE_GROUP: the
 * group's async copy) and group, and `key`, what must differ for two
 * accesses to race: the work-item within a group, the group across. */
struct ic_who {
	bool set;
	unsigned site;
	uint64_t item, group, key;
	int byte;	/* the byte a store wrote (-1: unknown, not a store) */
};

/* A byte's accesses in one epoch: writes, reads, atomics, each the first
 * and the first of another key (two suffice: of two distinct keys one
 * is not the accessing one). */
struct ic_seen {
	struct ic_who w[2], r[2], a[2];
};

/* An earlier access in s that races with w, an access of `kind`
 * (IC_RACE_*): another key, one writes, not both atomic, not two stores
 * of the same byte value (Oclgrind's default); NULL: none.  Then w is
 * remembered. */
const struct ic_who *ic_race_touch(struct ic_seen *s, const struct ic_who *w, unsigned kind);

/* A finding's access as instrument.h gives it. */
struct sibyl_race_access ic_race_access(const struct ic_layout *l, const struct ic_who *w);

/* Distinct pairs of lines: whether {a, b} (either order) was added before. */
struct ic_pairs {
	unsigned (*p)[2];
	size_t n;
};
bool ic_pair_seen(struct ic_pairs *s, unsigned a, unsigned b);

/* Record the race of `was` and `now` in f: the first pair found, and
 * the distinct pairs of lines counted (group: f's group). */
void ic_race_found(const struct ic_layout *l, struct ic_pairs *pairs,
		   struct sibyl_race_finding *f, const struct ic_who *was, const struct ic_who *now);

/* The __global accesses of the log (races_global.c): gathered group by
 * group (region: a group's count and entries), then scanned for races
 * within and across the groups into out, and freed. */
struct ic_global;
struct ic_global *ic_global_new(const struct ic_layout *l);
void ic_global_add(struct ic_global *g, const uint64_t *region, uint64_t group);
void ic_global_scan(struct ic_global *g, struct sibyl_races *out);

#endif
