/*
 * An ordered set of disjoint address ranges: a treap (a binary search
 * tree on the start address, a heap on random priorities), so insert,
 * erase and "which range holds p" take O(log n) expected steps.
 *
 * Its nodes come from one pool reserved up front with MAP_NORESERVE and
 * touched as it fills: no malloc (this code runs inside the program's
 * malloc and inside wrapped calls), node indices never move, and the
 * pool is mapped with a raw system call so the tracker's own mapping is
 * not reported to the tracker's mmap hook.  Callers hold the tracker's
 * lock.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct node {
	uintptr_t start, end;
	uint32_t left, right;	/* 0: none; left doubles as the free-list link */
	uint32_t prio;
	uint32_t pad;
};

/* 4 Mi live ranges, 128 MiB of address space, only touched pages cost. */
#define POOL_NODES (1u << 22)

static struct node *pool;	/* pool[0] is the null node */
static uint32_t pool_used = 1, free_list, prio_state = 2463534242u;

static uint32_t next_prio(void)
{
	prio_state ^= prio_state << 13;
	prio_state ^= prio_state >> 17;
	prio_state ^= prio_state << 5;
	return prio_state;
}

static uint32_t node_new(uintptr_t start, uintptr_t end)
{
	uint32_t n = free_list;

	if (!pool) {
		void *p = (void *)syscall(SYS_mmap, NULL, (size_t)POOL_NODES * sizeof(struct node),
					  PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			return 0;
		pool = p;
	}
	if (n)
		free_list = pool[n].left;
	else if (pool_used < POOL_NODES)
		n = pool_used++;
	else
		return 0;
	pool[n] = (struct node){ .start = start, .end = end, .prio = next_prio() };
	return n;
}

static void subtree_free(uint32_t n)
{
	while (n) {
		uint32_t right = pool[n].right;

		subtree_free(pool[n].left);
		pool[n].left = free_list;
		free_list = n;
		n = right;
	}
}

/* Split n into starts < key (*l) and starts >= key (*r). */
static void split(uint32_t n, uintptr_t key, uint32_t *l, uint32_t *r)
{
	if (!n) {
		*l = *r = 0;
	} else if (pool[n].start < key) {
		split(pool[n].right, key, &pool[n].right, r);
		*l = n;
	} else {
		split(pool[n].left, key, l, &pool[n].left);
		*r = n;
	}
}

/* Every start in l is below every start in r. */
static uint32_t merge(uint32_t l, uint32_t r)
{
	if (!l || !r)
		return l ? l : r;
	if (pool[l].prio > pool[r].prio) {
		pool[l].right = merge(pool[l].right, r);
		return l;
	}
	pool[r].left = merge(l, pool[r].left);
	return r;
}

static uint32_t rightmost(uint32_t n)
{
	while (n && pool[n].right)
		n = pool[n].right;
	return n;
}

static bool add_node(struct region_tree *t, uintptr_t start, uintptr_t end)
{
	uint32_t n = node_new(start, end), l, r;

	if (!n)
		return false;
	split(t->root, start, &l, &r);
	t->root = merge(merge(l, n), r);
	t->count++;
	return true;
}

static uint64_t subtree_count(uint32_t n)
{
	return n ? 1 + subtree_count(pool[n].left) + subtree_count(pool[n].right) : 0;
}

bool region_cut(struct region_tree *t, uintptr_t start, uintptr_t end)
{
	uint32_t l, m, r;
	uintptr_t tail = 0;

	if (start >= end)
		return true;
	split(t->root, start, &l, &m);
	split(m, end, &m, &r);
	/* Ranges starting inside [start, end) go; the last may reach past it. */
	if (m && pool[rightmost(m)].end > end)
		tail = pool[rightmost(m)].end;
	t->count -= subtree_count(m);
	subtree_free(m);
	/* The range starting before `start` may reach into it, or across it. */
	uint32_t before = rightmost(l);

	if (before && pool[before].end > start) {
		if (pool[before].end > end && pool[before].end > tail)
			tail = pool[before].end;
		pool[before].end = start;
	}
	t->root = merge(l, r);
	return tail ? add_node(t, end, tail) : true;
}

bool region_insert(struct region_tree *t, uintptr_t start, uintptr_t end)
{
	if (start >= end)
		return true;
	return region_cut(t, start, end) && add_node(t, start, end);
}

bool region_erase(struct region_tree *t, uintptr_t start)
{
	uint32_t l, m, r;

	split(t->root, start, &l, &m);
	split(m, start + 1, &m, &r);
	t->count -= subtree_count(m);
	subtree_free(m);
	t->root = merge(l, r);
	return m != 0;
}

bool region_find(const struct region_tree *t, uintptr_t p, struct region *out)
{
	uint32_t n = t->root, best = 0;

	while (n) {
		if (pool[n].start <= p) {
			best = n;
			n = pool[n].right;
		} else {
			n = pool[n].left;
		}
	}
	if (!best || p >= pool[best].end)
		return false;
	out->start = pool[best].start;
	out->end = pool[best].end;
	return true;
}

bool region_starts_within(const struct region_tree *t, uintptr_t lo, uintptr_t hi)
{
	uint32_t n = t->root;

	/* Down to the first start at or after lo: it is below hi, or none is. */
	while (n) {
		if (pool[n].start < lo)
			n = pool[n].right;
		else if (pool[n].start < hi)
			return true;
		else
			n = pool[n].left;
	}
	return false;
}

void region_clear(struct region_tree *t)
{
	subtree_free(t->root);
	t->root = 0;
	t->count = 0;
}

uint64_t region_pool_bytes(void)
{
	return (uint64_t)pool_used * sizeof(struct node);
}
