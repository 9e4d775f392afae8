/*
 * Calls left abnormally (docs/runtime.md): a wrapped call that never
 * returns to its wrapper, because longjmp or a C++ exception carried
 * control past it, or exit() or the end of the thread came first.  The
 * inline code of wrap_rt.h keeps a frame per call in progress; these are
 * its slow paths, which record such calls, flagged SIBYL_CALL_ABANDONED
 * and ended when the runtime noticed, and bring the depth back to the
 * calls really in progress, so later calls are not counted as nested.
 */
#include "rt/internal.h"

#include <stdbool.h>

/* A stack pointer further than this above a frame is on another stack
 * (a signal stack, a coroutine's): that frame is not known to be left. */
#define SAME_STACK_SPAN ((uintptr_t)16 << 20)

static bool left_behind(const struct sibyl_rt_frame *f, uintptr_t cfa)
{
	return f->sp < cfa && cfa - f->sp < SAME_STACK_SPAN;
}

/*
 * Pop the calls at depths [keep, depth) and record them, ended now.  The
 * frames are copied out and the depth lowered with the thread guard set,
 * so that a signal handler's wrapped call in between passes through
 * instead of closing the same frames twice.
 */
static void close_frames(struct sibyl_rt_thread *t, uint32_t keep)
{
	struct sibyl_rt_frame gone[SIBYL_RT_SHADOW];
	uint32_t depth, n = 0, deeper = 0;

	if (t->in_runtime || t->emitting || t->depth <= keep)
		return;
	t->in_runtime = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	depth = t->depth;
	for (uint32_t i = keep; i < depth; i++) {
		if (i < SIBYL_RT_SHADOW)
			gone[n++] = t->shadow[i];
		else
			deeper++;
	}
	t->depth = keep;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->in_runtime = 0;

	uint64_t now = sibyl_rt_clock();

	for (uint32_t i = 0; i < n; i++) {
		const struct sibyl_rt_frame *f = &gone[i];

		/* Begun in the parent before fork: the parent records it. */
		if (f->flags & SIBYL_RT_FRAME_INHERITED)
			continue;
		sibyl_rt_emit_record(t, f->func, f->start, f->start ? now : 0, 0, 0, 0, 0, 0,
				     keep + i, SIBYL_CALL_ABANDONED);
	}
	/* Nested deeper than the frames kept: nothing to record them with. */
	for (uint32_t i = 0; i < deeper; i++)
		sibyl_rt_lost(t);
}

RT_EXPORT uint32_t sibyl_rt_abandon_above(struct sibyl_rt_thread *t, uintptr_t cfa)
{
	uint32_t depth = t->depth;
	uint32_t valid = depth < SIBYL_RT_SHADOW ? depth : SIBYL_RT_SHADOW, keep = valid;

	while (keep > 0 && left_behind(&t->shadow[keep - 1], cfa))
		keep--;
	if (keep == valid)
		return depth;
	close_frames(t, keep);
	return t->depth;
}

RT_EXPORT void sibyl_rt_abandon_from(struct sibyl_rt_thread *t, uint32_t depth)
{
	close_frames(t, depth);
}

/* The thread or the process ends inside wrapped calls. */
void rt_close_open_calls(struct sibyl_rt_thread *t)
{
	close_frames(t, 0);
}

/* In a forked child: the calls in progress belong to the parent's trace. */
void rt_inherit_open_calls(struct sibyl_rt_thread *t)
{
	for (uint32_t i = 0; i < t->depth && i < SIBYL_RT_SHADOW; i++)
		t->shadow[i].flags |= SIBYL_RT_FRAME_INHERITED;
}
