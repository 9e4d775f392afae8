/*
 * Stack frames (the paper's main error source, V.B): a scalar passed by
 * pointer lives in the caller's frame, and without the frame's bounds
 * the whole stack above it would count as data.  Optimised code keeps no
 * frame pointers, so the caller's frame is found by unwinding (libgcc's
 * unwinder, through the .eh_frame tables every x86-64 object carries):
 * the caller's canonical frame address (CFA) ends its frame, the
 * wrapper's CFA starts it.
 *
 * Unwinding costs microseconds; a frame's size does not change from one
 * call to the next at the same call site (the caller's return address),
 * unless the caller uses alloca or variable-length arrays, so sizes are
 * cached per return address and a call site is unwound once.
 */
#include "rt/regions/regions.h"

#include <unwind.h>

#define CACHE_SLOTS 4096	/* a power of two */

struct site {
	uintptr_t return_address;	/* 0: empty slot */
	uintptr_t frame_size;		/* 0: unknown (no unwind information) */
};

static struct site cache[CACHE_SLOTS];

struct unwind_search {
	uintptr_t return_address;
	uintptr_t cfa;
	unsigned frames;
	bool found;
};

/*
 * The frame whose IP is the wrapper's return address is the caller.
 * While libgcc's backtrace shows a frame, the CFA it reports is still the
 * one of the frame before (its callee: measured, and so it computes it),
 * so the caller's own CFA is the one reported with the next frame.
 */
static _Unwind_Reason_Code find_caller(struct _Unwind_Context *ctx, void *arg)
{
	struct unwind_search *s = arg;

	if (s->found) {
		s->cfa = _Unwind_GetCFA(ctx);
		return _URC_END_OF_STACK;
	}
	s->found = _Unwind_GetIP(ctx) == s->return_address;
	return ++s->frames > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static uintptr_t unwind_frame_size(uintptr_t wrapper_cfa, uintptr_t return_address)
{
	struct unwind_search s = { .return_address = return_address };

	_Unwind_Backtrace(find_caller, &s);
	return s.cfa > wrapper_cfa ? s.cfa - wrapper_cfa : 0;
}

uintptr_t stack_caller_frame_size(uintptr_t wrapper_cfa, uintptr_t return_address)
{
	uintptr_t h = (return_address * 0x9e3779b97f4a7c15ull) >> 52;

	for (unsigned probe = 0; probe < 8; probe++) {
		struct site *s = &cache[(h + probe) & (CACHE_SLOTS - 1)];

		if (s->return_address == return_address)
			return s->frame_size;
		if (!s->return_address) {
			s->return_address = return_address;
			s->frame_size = unwind_frame_size(wrapper_cfa, return_address);
			return s->frame_size;
		}
	}
	/* The neighbourhood is full: answer without caching. */
	return unwind_frame_size(wrapper_cfa, return_address);
}
