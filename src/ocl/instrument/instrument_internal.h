/*
 * Private to the instruction counter (instrument*.c, counts*.c,
 * listing*.c): the counter layout shared by the IR analysis, the
 * instrumentation and the decoder.
 *
 * A layout is a list of counter slots. Every instruction the kernel can
 * execute maps to one slot (by Oclgrind's name for it); a load or store
 * maps to a count slot plus a bytes slot. Each basic block has a static
 * histogram over the slots; the instrumented block counts its entries in
 * one of the work-item's private counters, and the decoder adds the
 * histogram as often, which equals counting every instruction as
 * Oclgrind's interpreter does, since a block always runs to its end once
 * entered.
 */
#ifndef SIBYL_OCL_INSTRUMENT_INTERNAL_H
#define SIBYL_OCL_INSTRUMENT_INTERNAL_H

#include "ocl/instrument/instrument.h"

#include <llvm-c/Core.h>
#include <stdbool.h>

enum ic_slot_kind {
	IC_PLAIN,	/* an opcode or a named call: count only */
	IC_MEMOP,	/* a load or store in one address space: count, bytes in `bytes_slot` */
	IC_BYTES,	/* the bytes moved by an IC_MEMOP slot; never listed on its own */
};

struct ic_slot {
	char *name;		/* Oclgrind's name without the "(N bytes)" suffix */
	enum ic_slot_kind kind;
	unsigned addrspace;	/* IC_MEMOP: keeps unknown address spaces apart */
	size_t bytes_slot;	/* IC_MEMOP */
};

struct ic_hist;

struct ic_layout {
	struct ic_slot *slots;
	size_t n, cap;
	bool per_item;	/* one row of counters per work-item, no atomics */
	/* The counters the kernel keeps (instrument_counters.c): counter c
	 * stands for counter_hist[c], the summed histogram of its blocks. */
	struct ic_hist *counter_hist;
	size_t ncounters;
	/* Counting through the source: mark k's counter (SIZE_MAX: a mark
	 * the kernel never reaches), for the nmarks marks of the file. */
	size_t *mark_counter;
	size_t nmarks;
	/* --check's probe: the source line of a barrier counter c counts
	 * (0: none, or no debug information); NULL without the probe. */
	unsigned *barrier_line;
	/* Counting through the source with the barriers removed (the
	 * device's text defines them away, source_text.c). */
	bool strip_barriers;
	/* --check's race probe (races.c): no counters but a log of the
	 * __local and __global accesses, race_records of them for each of the first
	 * race_groups work-groups; race_sites[s] is what logs site s. */
	bool races;
	struct ic_race_site *race_sites;
	size_t nsites;
	uint64_t race_groups, race_records;
};

/* A logged instruction: its source line (0: unknown) and IC_RACE_* kinds. */
enum {
	IC_RACE_READ = 1, IC_RACE_WRITE = 2, IC_RACE_ATOMIC = 4,
	IC_RACE_GROUP = 8,	/* async_work_group_copy: the group's, not one item's */
	IC_RACE_BARRIER = 16,	/* a barrier (or wait_group_events) passed */
	IC_RACE_VALUE = 32,	/* a store of at most 8 bytes: its entry holds the value */
	IC_RACE_GLOBAL = 64,	/* an access to __global memory (else __local) */
	IC_RACE_HASH = 128,	/* with VALUE: a store of 9-16 bytes, its value's fingerprint */
};
/* A barrier's flags, as OpenCL's: only a global fence orders __global
 * accesses (Oclgrind's rule); every barrier ends a __local epoch. */
#define IC_RACE_GLOBAL_FENCE 2
struct ic_race_site {
	unsigned line;
	unsigned kind;
};
/* A log entry: the byte address, site << 32 | linear global id, bytes,
 * the value stored (IC_RACE_VALUE), a barrier's flags (else 0). */
#define IC_RACE_WORDS 4

/* One basic block's static contribution: `add[i]` to slot `slot[i]`. */
struct ic_hist {
	size_t *slot;
	uint64_t *add;
	size_t n, cap;
};

void ic_layout_free(struct ic_layout *layout);
void ic_hist_free(struct ic_hist *hist);
/* Add `add` to slot `slot` of the histogram. */
void ic_hist_add(struct ic_hist *hist, size_t slot, uint64_t add);

/* Append the histogram of `block` to `hist` (which starts empty),
 * creating slots in `layout` as needed. */
void ic_block_hist(struct ic_layout *layout, LLVMBasicBlockRef block, struct ic_hist *hist);

/* Oclgrind's byte size of a loaded or stored type (its own rules, not
 * the data layout's: 3-element vectors count as 4, pointers as 8). */
uint64_t ic_type_bytes(LLVMTypeRef type);

/* LLVM's textual opcode name ("getelementptr"), NULL if unknown. */
const char *ic_opcode_name(LLVMOpcode op);

struct ic_module;

/* The defined functions m's kernel can reach through direct calls, the
 * kernel first. Returns the count, or -1 with the error in m->err. */
int ic_reachable(const struct ic_module *m, LLVMValueRef **out);

/* Every block of the functions `fns` and its histogram. */
struct ic_blocks {
	LLVMBasicBlockRef *block;
	struct ic_hist *hist;
	size_t n;
	size_t *counter;	/* ic_assign_counters: the block's counter */
	bool *head;		/* it increments it (else its predecessor does) */
	/* Per counter: its blocks lie on no cycle, so one call of their
	 * function enters them at most once each and a 32-bit count per
	 * call is exact. */
	bool *narrow;
};

void ic_analyze(LLVMValueRef *fns, int nf, struct ic_layout *layout, struct ic_blocks *out);
void ic_blocks_free(struct ic_blocks *blocks);

/* Give each block a counter, blocks that always run together sharing
 * one (blocks->counter, blocks->head), and fill layout's counter_hist
 * and ncounters. */
void ic_assign_counters(struct ic_blocks *blocks, struct ic_layout *layout);

/* A parsed copy of SPIR bitcode and the kernel in it, in a context of its own. */
struct ic_module {
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMValueRef kernel;
	char *err;		/* the caller's, for the one error line */
	size_t errlen;
};

/* Parse `bc` and find the defined spir_kernel `kernel`. Returns 0, or
 * -1 with the reason in err (nothing to close then). */
int ic_module_open(struct ic_module *m, const void *bc, size_t size, const char *kernel,
		   char *err, size_t errlen);
void ic_module_close(struct ic_module *m);
/* ic_module_open, then mem2reg: loop variables and values passed around
 * live in allocas at -O0, and the analyses follow SSA values.  0, or -1
 * with "WHAT: why" in err (nothing to close then). */
int ic_module_open_ssa(struct ic_module *m, const void *bc, size_t size, const char *kernel,
		       const char *what, char *err, size_t errlen);
/* Run the LLVM pipeline `passes` on m: 0, or -1 with "WHAT: why" in m->err. */
int ic_run_passes(const struct ic_module *m, const char *passes, const char *what);

/* Rewrite the module so `fns` (the kernel first, then the functions it
 * reaches, as ic_reachable gives them) count `blocks` (their counters
 * assigned) into per-work-item counters that the kernel adds to a new trailing __global ulong*
 * argument on return. Other kernels and functions are removed. Returns 0,
 * or -1 with the reason in m->err. */
int ic_rewrite(struct ic_module *m, LLVMValueRef *fns, int nf, const struct ic_layout *layout,
	       const struct ic_blocks *blocks);

/* A copy of function `f` with one more trailing parameter of type
 * `extra`, holding f's name, attributes, metadata (kernel_arg_* nodes
 * extended when `kernel`) and body; `f` is left an unnamed empty
 * declaration. */
LLVMValueRef ic_add_param(LLVMModuleRef mod, LLVMValueRef f, LLVMTypeRef extra, bool kernel);

/* Replace `call` by a call of `fn` with one more trailing argument
 * `extra` (debug location, name, attributes kept). */
void ic_redirect_call(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef fn, LLVMValueRef extra);

/* Remove every function but `fns` and sibyl's own (__sibyl_*): the
 * others still call the old, empty versions. */
void ic_keep_only(LLVMModuleRef mod, LLVMValueRef *fns, int nf);

/* Verify m's module (`what` names it in the error), run `passes`
 * (NULL: none), write the bitcode to *bc (malloc'd), *size. 0, or -1
 * with m->err. */
int ic_emit(const struct ic_module *m, const char *what, const char *passes, void **bc,
	    size_t *size);
/* ic_emit inlining the always-inline helpers, into out (bitcode, size). */
int ic_write_bitcode(const struct ic_module *m, struct sibyl_instrumented *out);

/* The end of an instrumentation: on success (rc 0) out keeps layout,
 * else both are freed and -1 returned. */
int ic_finish(int rc, struct ic_layout *layout, struct sibyl_instrumented *out);

/* The calling work-item's linear global id (`group`: its group's linear
 * id), built at b's position. */
LLVMValueRef ic_linear_id(LLVMModuleRef mod, LLVMBuilderRef b, bool group);

/* Build the function `name`(ulong *ctr, __global ulong *buf) that moves
 * a work-item's `nslots` counters ctr[0..nslots) to buf[offset..]:
 * atomically added, or (`per_item`) stored into the work-item's own row
 * of `row_len` counters. */
LLVMValueRef ic_build_flush(LLVMModuleRef mod, LLVMBuilderRef b, const char *name, size_t nslots,
			    size_t offset, size_t row_len, bool per_item);

/* Remove every barrier() and work_group_barrier() call of the module
 * (barriers.c; --check's barrier count). */
void ic_strip_barriers(LLVMModuleRef mod);
/* Fill layout->barrier_line from the barrier calls' debug locations. */
void ic_barrier_lines(const struct ic_blocks *blocks, struct ic_layout *layout);
/* A barrier call's source line (0: not a barrier call, no debug info). */
unsigned ic_barrier_call_line(LLVMValueRef i);
/* Slot s counts calls of barrier() or work_group_barrier(). */
bool ic_slot_is_barrier(const struct ic_slot *s);

/* Turn per-slot sums into a listing (zero counts dropped, Oclgrind's
 * order). */
void ic_listing_from_sums(const struct ic_layout *layout, const uint64_t *sums,
			 struct sibyl_instcounts *out);

/* Sort a listing as Oclgrind does: count descending, then name. */
void ic_listing_sort(struct sibyl_instcounts *counts);

#endif
