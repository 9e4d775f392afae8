/*
 * The call tree of one thread, derived from what the runtime records:
 * each call's nesting depth and times.  Records are written when a call
 * returns, so a thread's file holds its calls in exit order and every
 * call comes after the calls it made.  The calls not yet claimed by an
 * enclosing call wait on a stack; a call of depth d claims, from the
 * top, those deeper than d that lie within its own time span.
 *
 * The time check keeps a wrong depth from misattributing calls: a call
 * whose recorded parent was lost (dropped, torn, or left by longjmp)
 * goes to the nearest recorded call that encloses it, or to none.
 * A depth-0 call cannot be enclosed by anything on its thread, and
 * nothing before it can be enclosed by anything after it, so the stack
 * is emptied there; if depths never return to 0 it is capped, the oldest
 * waiting calls becoming roots.
 */
#include "trace/internal.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Waiting calls kept at most (24 bytes each). */
#define CALLTREE_MAX ((size_t)1 << 20)

static bool encloses(const struct sibyl_trace_call *c, const struct calltree_pending *x)
{
	return x->depth > c->depth && x->start_ns >= c->start_ns && x->end_ns <= c->end_ns;
}

uint64_t calltree_feed(struct calltree *ct, const struct sibyl_trace_call *c, uint64_t id,
		       uint64_t *parent_of, uint64_t parent_base)
{
	uint64_t children = 0;

	while (ct->n && encloses(c, &ct->v[ct->n - 1])) {
		const struct calltree_pending *x = &ct->v[--ct->n];

		children += x->duration_ns;
		if (parent_of)
			parent_of[x->id - parent_base] = id;
	}
	if (c->depth == 0) {
		ct->n = 0;
	} else {
		if (ct->n == CALLTREE_MAX) {
			ct->n /= 2;
			memmove(ct->v, ct->v + ct->n, ct->n * sizeof(*ct->v));
		}
		if (ct->n == ct->cap) {
			ct->cap = ct->cap ? ct->cap * 2 : 64;
			ct->v = sibyl_xreallocarray(ct->v, ct->cap, sizeof(*ct->v));
		}
		ct->v[ct->n++] = (struct calltree_pending){ id, c->start_ns, c->end_ns,
							    c->duration_ns, c->depth };
	}
	return children < c->duration_ns ? c->duration_ns - children : 0;
}

void calltree_reset(struct calltree *ct)
{
	ct->n = 0;
}

void calltree_free(struct calltree *ct)
{
	free(ct->v);
	memset(ct, 0, sizeof(*ct));
}
