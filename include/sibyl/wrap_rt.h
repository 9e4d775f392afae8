/*
 * The interface between generated wrapper libraries and libsibyl-rt.so.
 *
 * Generated code includes this header; the fast path (reserve a record
 * slot, fill it, commit) is inline so an intercepted call costs a TLS
 * read, two TSC reads and a few stores.  Everything that may block,
 * allocate or make system calls lives behind sibyl_rt_refill() in the
 * runtime, where it runs with the thread's in_runtime guard set so that
 * calls the runtime itself makes are never traced.
 */
#ifndef SIBYL_WRAP_RT_H
#define SIBYL_WRAP_RT_H

#include <stdint.h>
#include <x86intrin.h>
#include <sibyl/trace_format.h>

/*
 * A wrapped call in progress (docs/runtime.md, "Calls left abnormally"):
 * the wrapper's stack pointer, so that a call whose frame was discarded
 * by longjmp or an exception can be recognised and recorded later.
 */
#define SIBYL_RT_SHADOW 16
#define SIBYL_RT_FRAME_INHERITED 0x1	/* begun before fork: not this process's */

struct sibyl_rt_frame {
	uintptr_t sp;		/* the wrapper's; UINTPTR_MAX while being filled */
	uint64_t start;		/* start_tsc (0 until the time generator sets it) */
	uint32_t func;
	uint32_t flags;		/* SIBYL_RT_FRAME_* */
};

struct sibyl_rt_thread {
	struct sibyl_call_record *cur;		/* next free slot */
	struct sibyl_call_record *limit;	/* end of the mapped window */
	volatile uint64_t *committed;		/* in the file header */
	uint32_t depth;		/* wrapped calls in progress (nesting) */
	uint32_t in_runtime;	/* nonzero: runtime code is running, do not trace */
	uint32_t emitting;	/* nonzero: a record is being reserved/stored */
	/* Runtime-private from here on. */
	void *window;		/* current data mapping */
	uint64_t window_bytes;
	uint64_t file_bytes;
	uint64_t granted_end;	/* ring mode: records reserved when cur reaches limit */
	int state;
	int stalled;		/* ring mode: the drainer stopped freeing room */
	/* The calls in progress, outermost first: the first min(depth,
	 * SIBYL_RT_SHADOW) entries are valid.  Written by the inline code. */
	struct sibyl_rt_frame shadow[SIBYL_RT_SHADOW];
};

extern __thread struct sibyl_rt_thread sibyl_rt_self_state
	__attribute__((tls_model("initial-exec")));

/* The address is made opaque to the compiler, so that a wrapper reaches
 * every field through one register instead of %fs plus an offset for
 * some and a computed address for others (fewer registers to save). */
static inline struct sibyl_rt_thread *sibyl_rt_self(void)
{
	struct sibyl_rt_thread *t = &sibyl_rt_self_state;

	__asm__("" : "+r"(t));
	return t;
}

static inline uint64_t sibyl_rt_clock(void)
{
	return __rdtsc();
}

/* Slow path: open or grow this thread's buffer; NULL when not tracing. */
struct sibyl_call_record *sibyl_rt_refill(struct sibyl_rt_thread *t);

/* Announce the functions of one wrapper library (constructor time). */
void sibyl_rt_register(const char *library, const char *const *names,
		       const uint32_t *ids, unsigned count);

/* What the `work` of a function's records counts, from a definition
 * file's `metric` (constructor time; see docs/formats.md, work_metrics.tsv). */
struct sibyl_rt_work_metric {
	uint32_t id;
	const char *metric;	/* printable, no tab or newline */
};
void sibyl_rt_declare_work(const struct sibyl_rt_work_metric *metrics, unsigned count);

/*
 * Resolve the original of `name` with the thread guard held: first through
 * `next`, a static function of the wrapper library that calls
 * dlsym(RTLD_NEXT, name) (RTLD_NEXT is relative to its caller, so it must
 * be called from the wrapper, not from the runtime), then by opening
 * `library` explicitly (needed when the application dlopen'ed the library
 * RTLD_LOCAL, as Python extension modules do).  NULL if both fail.
 * `next` must not end in a tail call to dlsym (the caller would then be
 * the runtime): put an empty asm statement between the call and return,
 * as SIBYL_RT_NEXT_FUNCTION does.
 */
#define SIBYL_RT_NEXT_FUNCTION(fname)                         \
	static void *fname(const char *name)                  \
	{                                                     \
		void *fn = dlsym(RTLD_NEXT, name);             \
		__asm__ __volatile__("" : : "r"(fn) : "memory"); \
		return fn;                                    \
	}

void *sibyl_rt_resolve(const char *name, const char *library,
		       void *(*next)(const char *name));

/* Counters micro-generator support: snapshot and record deltas. */
int sibyl_rt_counters_read(struct sibyl_rt_thread *t, uint64_t *values);
/* Restrict the counters recorded to these enum sibyl_counter bits. */
void sibyl_rt_counters_select(unsigned mask);
void sibyl_rt_counters_emit(struct sibyl_rt_thread *t, uint32_t func,
			    uint64_t start_tsc, const uint64_t *before);

/*
 * What a wrapper library exports besides its wrapped functions: the mark
 * `sibyl trace` recognises it by (an unsigned holding the wrapper
 * interface version), and the path of the library it wraps (a string),
 * which the audit module (src/rt/audit) reads from the file.  The runtime
 * looks the mark up with dlsym once it has loaded a wrapper, which tells
 * the audit module that the wrapper is ready.
 */
#define SIBYL_WRAPPER_MARK_SYMBOL "sibyl_wrapper_abi"
#define SIBYL_WRAPPED_LIBRARY_SYMBOL "sibyl_wrapped_library"
/* A redirect wrapper also exports the alternative library's path or
 * soname: the audit module lets it call the original library. */
#define SIBYL_REDIRECT_LIBRARY_SYMBOL "sibyl_redirect_library"

/*
 * worksize.fast (docs/worksize.md): a wrapper library that exports this
 * symbol wants the region tracker, libsibyl-regions.so, which `sibyl
 * trace` then preloads beside the runtime.
 */
#define SIBYL_WS_WANTED_SYMBOL "sibyl_worksize_wanted"

enum {
	SIBYL_WS_CONST = 1,	/* points to const: input */
	SIBYL_WS_ARRAY = 2,	/* points to pointers: follow them */
};

struct sibyl_rt_ws_arg {
	const void *p;
	unsigned flags;		/* SIBYL_WS_* */
	uint32_t size;		/* points to one struct of this size; 0: unknown */
};

struct sibyl_rt_ws_sizes {
	uint64_t in_bytes, out_bytes, inout_bytes;
	uint32_t regions, unknown;
};

/*
 * In libsibyl-regions.so: the sizes the pointer arguments stand for;
 * `frame` is the wrapper's canonical frame address and `ret` its return
 * address, which bound the caller's stack frame.  1 when *out holds them;
 * 0 (zero sizes) on a thread already inside sibyl code.  Wrappers refer
 * to it weakly (#pragma weak): without that library loaded, it is NULL.
 */
int sibyl_regions_worksize(struct sibyl_rt_thread *t, const struct sibyl_rt_ws_arg *args,
			   unsigned n, const void *frame, const void *ret,
			   struct sibyl_rt_ws_sizes *out);

/*
 * worksize.full (docs/worksize.md): the bytes the pointer arguments reach
 * that changed since the library last saw them are input at entry, the
 * bytes the call changed output at exit; both are in-out.  The wrapper
 * keeps what entry inspected, for exit, in a sibyl_rt_ws_full on its
 * stack.  Both in libsibyl-regions.so, referred to weakly; 1 when they
 * measured, 0 (nothing measured) on a thread already inside sibyl code.
 */
#define SIBYL_WS_FULL_RANGES 32

struct sibyl_rt_ws_full {
	uint64_t in_bytes;
	uint32_t n, regions, unknown;
	uint32_t carry_tid;	/* the earlier call's thread, when another one's (0: this one) */
	uint64_t version;	/* of the tracker's sets when entry looked */
	uint32_t counted;	/* bit i: entry counted input in r[i] */
	uint32_t written;	/* bit i: r[i] is reached through a pointer to non-const */
	uint32_t carry_func;	/* the earlier call part of whose input this one read */
	uint64_t carry_start;	/* its start_tsc */
	uint64_t carry;		/* those bytes (0: none) */
	struct {
		uintptr_t lo, hi;
	} r[SIBYL_WS_FULL_RANGES];
};

int sibyl_regions_full_enter(struct sibyl_rt_thread *t, const struct sibyl_rt_ws_arg *args,
			     unsigned n, const void *frame, const void *ret,
			     struct sibyl_rt_ws_full *st);
int sibyl_regions_full_exit(struct sibyl_rt_thread *t, struct sibyl_rt_ws_full *st,
			    struct sibyl_rt_ws_sizes *out);

static inline struct sibyl_call_record *
sibyl_rt_reserve(struct sibyl_rt_thread *t)
{
	struct sibyl_call_record *r = t->cur;

	if (__builtin_expect(r == t->limit, 0)) {
		r = sibyl_rt_refill(t);
		if (!r)
			return 0;
	}
	t->cur = r + 1;
	return r;
}

/*
 * Reserve, fill and commit form one critical section per thread: a signal
 * handler that interrupts it and makes a wrapped call of its own must not
 * touch the buffer (the interrupted code holds cur and committed in
 * registers), so that call is only counted in the header's `dropped`.
 * The signal fences keep the compiler from moving buffer accesses out of
 * the section; on one thread nothing more is needed.
 */
static inline void sibyl_rt_lost(struct sibyl_rt_thread *t)
{
	if (t->committed)
		__atomic_fetch_add(&((struct sibyl_events_header *)
				     ((char *)t->committed -
				      __builtin_offsetof(struct sibyl_events_header, committed)))->dropped,
				   1, __ATOMIC_RELAXED);
}

/* A wrapped call that passes through untraced because runtime code is
 * running on this thread: if that code is recording a call, this one
 * comes from a signal handler and is counted as lost. */
static inline void sibyl_rt_bypass(struct sibyl_rt_thread *t)
{
	if (t->emitting)
		sibyl_rt_lost(t);
}

/* Nonzero when this thread must not record now: runtime code is running
 * (in_runtime), or a record is being stored (emitting) and this call
 * comes from a signal handler that interrupted it.  (Two 4-byte loads:
 * one 8-byte load of both would wait for the previous call's 4-byte
 * store of emitting to leave the store buffer, ~6 ns here.) */
static inline uint32_t sibyl_rt_busy(const struct sibyl_rt_thread *t)
{
	return t->in_runtime | t->emitting;
}

static inline int sibyl_rt_begin(struct sibyl_rt_thread *t)
{
	if (__builtin_expect(t->emitting, 0)) {
		sibyl_rt_lost(t);
		return 0;
	}
	t->emitting = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

/* Publish a filled record: readers (the drainer, a crash post-mortem)
 * trust `committed` records, so it is bumped after the record's stores. */
static inline void sibyl_rt_commit(struct sibyl_rt_thread *t)
{
	/* One add to memory instead of load, add, store.  Only this thread
	 * writes the counter; x86 keeps stores in order (TSO), so the new
	 * count is seen after the record's stores, as a release store would
	 * be, and the "memory" clobber keeps the compiler from moving those
	 * stores past it.  (This header is x86-only: it reads the TSC.) */
	__asm__ __volatile__("addq $1, %0" : "+m"(*t->committed) : : "memory");
}

static inline void sibyl_rt_end(struct sibyl_rt_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->emitting = 0;
}

/* Fill a reserved slot with a call record and commit it.  `method`
 * (enum sibyl_ws_method) measured in/out/inout, 0 when they come from a
 * manual expression or nothing; `depth` counts the wrapped calls around
 * it; `flags` are SIBYL_CALL_*. */
static inline __attribute__((always_inline)) void
sibyl_rt_store_call(struct sibyl_rt_thread *t, struct sibyl_call_record *r, uint32_t func,
		    uint64_t start, uint64_t end, uint64_t in_bytes, uint64_t out_bytes,
		    uint64_t inout_bytes, unsigned method, double work, uint32_t depth,
		    unsigned flags)
{
	r->depth = (uint16_t)depth;
	r->func = func;
	r->start_tsc = start;
	r->end_tsc = end;
	r->in_bytes = in_bytes;
	r->out_bytes = out_bytes;
	r->work = work;
	/* Stored even when 0: ring slots are reused. */
	r->inout_bytes = inout_bytes;
	r->size_method = (uint8_t)method;
	r->flags = (uint8_t)flags;
	/* kind last: a record with kind 0 was torn by a crash. */
	__atomic_store_n(&r->kind, SIBYL_REC_CALL, __ATOMIC_RELEASE);
	sibyl_rt_commit(t);
}

static inline void sibyl_rt_emit_record(struct sibyl_rt_thread *t, uint32_t func,
					uint64_t start, uint64_t end,
					uint64_t in_bytes, uint64_t out_bytes,
					uint64_t inout_bytes, unsigned method, double work,
					uint32_t depth, unsigned flags)
{
	if (!sibyl_rt_begin(t))
		return;
	struct sibyl_call_record *r = sibyl_rt_reserve(t);

	if (r)
		sibyl_rt_store_call(t, r, func, start, end, in_bytes, out_bytes, inout_bytes,
				    method, work, depth, flags);
	sibyl_rt_end(t);
}

/*
 * The record of a wrapped call that returned, at the thread's depth, from
 * a wrapper that found sibyl_rt_busy() zero when the call began: emitting
 * is then zero here too (a signal handler's recordings in between leave
 * it as they found it), so it is set without being tested, and the slot
 * comes straight from the buffer unless the buffer is full.
 */
#ifdef __OPTIMIZE__
#define SIBYL_RT_COLD static __attribute__((noinline, cold, unused))
#else
/* GCC at -O0 emits every static function that is not inline, used or
 * not: a program including this header without linking the runtime
 * (sibyl's own wrapper generator) would then need sibyl_rt_refill.
 * Nothing is inlined at -O0 anyway. */
#define SIBYL_RT_COLD static inline __attribute__((cold))
#endif
SIBYL_RT_COLD void
sibyl_rt_emit_refilled(struct sibyl_rt_thread *t, uint32_t func, uint64_t start, uint64_t end,
		       uint64_t in_bytes, uint64_t out_bytes, uint64_t inout_bytes,
		       unsigned method, double work, uint32_t depth)
{
	struct sibyl_call_record *r = sibyl_rt_refill(t);

	if (r) {
		t->cur = r + 1;
		sibyl_rt_store_call(t, r, func, start, end, in_bytes, out_bytes, inout_bytes,
				    method, work, depth, 0);
	}
	sibyl_rt_end(t);
}

/* The slow half (a full buffer) is out of line: values it needs are not
 * kept alive across a call on the fast path. */
static inline __attribute__((always_inline)) void
sibyl_rt_emit_returned(struct sibyl_rt_thread *t, uint32_t func, uint64_t start, uint64_t end,
		       uint64_t in_bytes, uint64_t out_bytes, uint64_t inout_bytes,
		       unsigned method, double work, uint32_t depth)
{
	struct sibyl_call_record *r;

	t->emitting = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r = t->cur;
	if (__builtin_expect(r == t->limit, 0)) {
		sibyl_rt_emit_refilled(t, func, start, end, in_bytes, out_bytes, inout_bytes,
				       method, work, depth);
		return;
	}
	t->cur = r + 1;
	sibyl_rt_store_call(t, r, func, start, end, in_bytes, out_bytes, inout_bytes, method,
			    work, depth, 0);
	sibyl_rt_end(t);
}

/* The call record of a call that returned, at the thread's depth. */
static inline void sibyl_rt_emit_call_sized(struct sibyl_rt_thread *t, uint32_t func,
					    uint64_t start, uint64_t end,
					    uint64_t in_bytes, uint64_t out_bytes,
					    uint64_t inout_bytes, unsigned method, double work)
{
	sibyl_rt_emit_record(t, func, start, end, in_bytes, out_bytes, inout_bytes, method, work,
			     t->depth, 0);
}

static inline void sibyl_rt_emit_call(struct sibyl_rt_thread *t, uint32_t func,
				      uint64_t start, uint64_t end,
				      uint64_t in_bytes, uint64_t out_bytes,
				      double work)
{
	sibyl_rt_emit_call_sized(t, func, start, end, in_bytes, out_bytes, 0, 0, work);
}

/*
 * Nesting, exact under longjmp and exceptions.  A call pushes a frame
 * with its wrapper's stack pointer.  Any wrapped call made inside it has
 * its canonical frame address (its caller's stack pointer) at or below
 * that pointer: equal when the original tail-calls it, lower otherwise.
 * So when a new wrapped call's CFA is above the innermost frame's stack
 * pointer, that call was left without returning (longjmp, C++
 * exception): the runtime records it, flagged, and pops it
 * (sibyl_rt_abandon_above).  And a call that returns with deeper frames
 * still pushed closes those (sibyl_rt_abandon_from).  The common case
 * costs a compare of depth with zero on entry and one on return.
 */
uint32_t sibyl_rt_abandon_above(struct sibyl_rt_thread *t, uintptr_t cfa);
void sibyl_rt_abandon_from(struct sibyl_rt_thread *t, uint32_t depth);

/* Must be inlined into the wrapper: its stack pointer is the wrapper's. */
static inline __attribute__((always_inline)) uintptr_t sibyl_rt_sp(void)
{
	uintptr_t sp;

	__asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* `sp` is the wrapper's stack pointer, `cfa` its canonical frame address
 * (the caller's stack pointer at the call).  Returns the call's depth,
 * which the wrapper hands back to sibyl_rt_leave. */
static inline __attribute__((always_inline)) uint32_t
sibyl_rt_enter(struct sibyl_rt_thread *t, uint32_t func, uintptr_t sp, uintptr_t cfa)
{
	uint32_t d = t->depth;

	if (__builtin_expect(d != 0, 0) &&
	    t->shadow[d <= SIBYL_RT_SHADOW ? d - 1 : SIBYL_RT_SHADOW - 1].sp < cfa)
		d = sibyl_rt_abandon_above(t, cfa);
	if (__builtin_expect(d < SIBYL_RT_SHADOW, 1)) {
		struct sibyl_rt_frame *f = &t->shadow[d];

		/* A signal handler's wrapped calls may run between any two of
		 * these stores: until the frame is complete it reads as in
		 * progress (UINTPTR_MAX), and once depth counts it the handler
		 * pushes above it. */
		f->sp = UINTPTR_MAX;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->depth = d + 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		f->start = 0;
		f->func = func;
		f->flags = 0;
		f->sp = sp;
	} else {
		t->depth = d + 1;
	}
	return d;
}

/* The time generator's start stamp, for a call that may be left. */
static inline void sibyl_rt_started(struct sibyl_rt_thread *t, uint32_t d, uint64_t start)
{
	if (__builtin_expect(d < SIBYL_RT_SHADOW, 1))
		t->shadow[d].start = start;
}

/* The call at depth d returned. */
static inline void sibyl_rt_leave(struct sibyl_rt_thread *t, uint32_t d)
{
	uint32_t inner = d + 1;

	/* Recomputed here rather than kept from sibyl_rt_enter in a register
	 * that would have to survive the call. */
	__asm__("" : "+r"(inner));
	if (__builtin_expect(t->depth != inner, 0))
		sibyl_rt_abandon_from(t, inner);
	t->depth = d;
}

/* The worksize record of the call just emitted (same func and start):
 * only when a manual expression gave the call record's sizes. */
static inline void sibyl_rt_emit_worksize(struct sibyl_rt_thread *t, uint32_t func,
					  uint64_t start, unsigned method, unsigned flags,
					  const struct sibyl_rt_ws_sizes *ws)
{
	if (!sibyl_rt_begin(t))
		return;
	struct sibyl_worksize_record *r = (struct sibyl_worksize_record *)sibyl_rt_reserve(t);

	if (r) {
		r->method = (uint8_t)method;
		r->flags = (uint8_t)flags;
		r->func = func;
		r->start_tsc = start;
		r->in_bytes = ws->in_bytes;
		r->out_bytes = ws->out_bytes;
		r->inout_bytes = ws->inout_bytes;
		r->regions = ws->regions;
		r->unknown = ws->unknown;
		r->reserved[0] = r->reserved[1] = 0;
		__atomic_store_n(&r->kind, SIBYL_REC_WORKSIZE, __ATOMIC_RELEASE);
		sibyl_rt_commit(t);
	}
	sibyl_rt_end(t);
}

/* Part of an earlier call's input was this call's (st->carry): the
 * reader takes it off the earlier call. */
static inline void sibyl_rt_emit_ws_carry(struct sibyl_rt_thread *t, unsigned method,
					  const struct sibyl_rt_ws_full *st)
{
	if (!sibyl_rt_begin(t))
		return;
	struct sibyl_ws_carry_record *r = (struct sibyl_ws_carry_record *)sibyl_rt_reserve(t);

	if (r) {
		*r = (struct sibyl_ws_carry_record){ .method = (uint8_t)method, .func = st->carry_func,
						     .start_tsc = st->carry_start, .bytes = st->carry,
						     .flags = st->carry_tid ? SIBYL_CARRY_OTHER_THREAD : 0,
						     .tid = st->carry_tid };
		__atomic_store_n(&r->kind, SIBYL_REC_WS_CARRY, __ATOMIC_RELEASE);
		sibyl_rt_commit(t);
	}
	sibyl_rt_end(t);
}

#endif
