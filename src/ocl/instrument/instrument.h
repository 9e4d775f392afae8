/*
 * Dynamic and static LLVM instruction counts of an OpenCL kernel
 * (`sibyl kernel -i` / `--static`), the contract between the kernel
 * driver (which compiles, runs and reads back) and the IR
 * instrumentation (instrument*.c, counts.c, listing.c; docs/instcounts.md).
 *
 * The instrumented kernel takes one extra trailing argument, a __global
 * buffer of counters; each work-item counts in private variables and
 * flushes once, so the overhead stays small. The names are Oclgrind's
 * (`load global`, `call _Z13get_global_idj()`, `br`, `phi`, ...), so the
 * listing compares line by line with `oclgrind --inst-counts`.
 *
 * Changes since the first contract (all additive, the functions keep
 * their meaning):
 *  - sibyl_instrument_kernel_ex() with struct sibyl_instrument_options:
 *    `per_item_rows` for devices without cl_khr_int64_base_atomics;
 *    sibyl_instrumented_buffer_size() then grows with global_items, so
 *    pass the real NDRange size.
 *  - A listing item's `name` is the full Oclgrind name, bytes included
 *    ("load global (2048 bytes)"), so JSON and listing use one name;
 *    after sibyl_instcounts_coarsen() it is "load global".
 *  - The instrumented module holds only the requested kernel (other
 *    kernels are removed); the counters argument is the last one,
 *    `__global ulong *`, its kernel_arg_* entries are "ulong*", "none",
 *    "", "__sibyl_counters".
 *  - The listing ends with an empty line, as Oclgrind's does.
 *  - sibyl_instrumented_barriers(): each work-item's barrier count, from
 *    per-item rows, and the `strip_barriers` option that lets each
 *    work-item run its own way (`sibyl kernel --check`).
 *  - sibyl_instrument_races() and sibyl_instrumented_races(): --check's
 *    race probe, a log of the __local accesses in place of counters
 *    (same trailing argument, same buffer handling; no listing); then
 *    of the __global accesses too (sibyl_races' `global`, `across`).
 *  - sibyl_spir_only_kernel(): the plain bitcode of one kernel (--spir).
 */
#ifndef SIBYL_OCL_INSTRUMENT_H
#define SIBYL_OCL_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One line of a listing: an instruction name and how often it ran.
 * For loads and stores `bytes` is the total moved, and the name carries
 * it too, as in "load global (2048 bytes)"; 0 for anything else. */
struct sibyl_instcount {
	char *name;
	uint64_t count;
	uint64_t bytes;
};

struct sibyl_instcounts {
	struct sibyl_instcount *items;
	size_t n;
};

/* An instrumented copy of a program's SPIR bitcode for one kernel. */
struct sibyl_instrumented {
	void *bitcode;             /* malloc'd; load with clCreateProgramWithBinary */
	size_t size;
	unsigned counter_arg;      /* index of the added counters argument */
	void *layout;              /* private: which counter means what */
};

/* Instrument `kernel` of SPIR bitcode `bc`. Returns 0, or -1 with the
 * error line in err ("instrument: <why>"). The counters are flushed with 64-bit atomics
 * (the device needs cl_khr_int64_base_atomics). */
int sibyl_instrument_kernel(const void *bc, size_t size, const char *kernel,
			    struct sibyl_instrumented *out, char *err, size_t errlen);

struct sibyl_instrument_options {
	/* No 64-bit atomics on the device: every work-item stores its
	 * counters into its own row (global_items rows of ~50 counters),
	 * and the decoder sums the rows. */
	bool per_item_rows;
	/* Rows also when `max_items` of them fit in `rows_max_bytes`
	 * (the kernel's number of counters decides; 0: never). */
	uint64_t max_items;
	size_t rows_max_bytes;
	/* Remove the barriers, still counted (with per_item_rows: each
	 * work-item's own barrier count, sibyl_instrumented_barriers).
	 * The kernel's results are then meaningless. */
	bool strip_barriers;
};

/* sibyl_instrument_kernel with options (NULL: the defaults). */
int sibyl_instrument_kernel_ex(const void *bc, size_t size, const char *kernel,
			       const struct sibyl_instrument_options *opt,
			       struct sibyl_instrumented *out, char *err, size_t errlen);

/* Bytes the counters buffer needs for an NDRange of `global_items`
 * work-items in groups of `local_items` (0: implementation chooses).
 * The driver zero-fills it before the launch. SIZE_MAX: more than a
 * size_t holds. */
size_t sibyl_instrumented_buffer_size(const struct sibyl_instrumented *in,
				      size_t global_items, size_t local_items);

/* Turn the counters read back after the run into a listing in
 * Oclgrind's order. Returns 0, or -1 with the error line in err. */
int sibyl_instrumented_decode(const struct sibyl_instrumented *in,
			      const void *buffer, size_t size,
			      struct sibyl_instcounts *out, char *err, size_t errlen);

/* From per-item rows (per_item_rows; row r: the work-item of linear
 * global id r), the barrier() and work_group_barrier() calls each
 * work-item made: a malloc'd array of *rows counts, or NULL (*rows 0)
 * when the counters are not in rows. */
uint64_t *sibyl_instrumented_barriers(const struct sibyl_instrumented *in, const void *buffer,
				      size_t size, size_t *rows);

/* With strip_barriers and debug information (clang -g): the source line
 * of a barrier that work-items a and b (rows) reached differently
 * often, or 0. */
unsigned sibyl_instrumented_barrier_line(const struct sibyl_instrumented *in, const void *buffer,
					 size_t size, size_t a, size_t b);

/* Whether the barrier probe, which runs each work-item alone, can judge
 * `kernel` (barrier_data.c): 1 when a branch deciding how often a
 * barrier is reached reads __local or __global memory (*line: its
 * source line, 1 without debug information), 0 when none does, -1 with
 * the error line in err. */
int sibyl_barrier_data_branch(const void *bc, size_t size, const char *kernel, unsigned *line,
			      char *err, size_t errlen);

/* --check's race probe (races.c): `kernel` of `bc` logging its
 * __local and __global accesses and barriers into the trailing argument, up to
 * `records` of them for each of the work-groups of linear id below
 * `groups` (sibyl_instrumented_buffer_size says the buffer's bytes, the
 * driver zero-fills it).  Keeps the barriers.  0, or -1 with err. */
int sibyl_instrument_races(const void *bc, size_t size, const char *kernel, uint64_t groups,
			   uint64_t records, struct sibyl_instrumented *out, char *err,
			   size_t errlen);

/* One access of a finding: its source line (0: unknown), "read",
 * "write", "atomic" or "async copy", the work-item's linear global id
 * (SIBYL_RACE_GROUP: the group's async copy) and its group's. */
#define SIBYL_RACE_GROUP UINT64_MAX
struct sibyl_race_access {
	unsigned line;
	const char *what;
	uint64_t item;
	uint64_t group;
};

/* What the log says (races_scan.c, races_global.c).  A race: two
 * work-items of a group touched one __local byte between the same two
 * barriers, one writing (two atomics never race, nor two stores of the
 * same value); a and b are the first pair found, `lines` the distinct
 * pairs of lines that race.  The same on __global memory between two
 * barriers with CLK_GLOBAL_MEM_FENCE (`global`), and by work-items of
 * two groups anywhere in the kernel (`across`: nothing orders groups).
 * An uninitialised read: a work-item read a __local byte nothing had
 * written before (no earlier epoch, not itself earlier in this one). */
struct sibyl_race_finding {
	bool found;
	struct sibyl_race_access a, b;	/* b: unused for an uninitialised read */
	uint64_t group;			/* linear group id (b's, across groups) */
	size_t lines;
};
struct sibyl_races {
	struct sibyl_race_finding race, uninit;
	struct sibyl_race_finding global, across;
	uint64_t groups;	/* groups whose accesses were logged */
	uint64_t truncated;	/* of those, whose log was cut (the rest unseen) */
	uint64_t unscanned;	/* __global accesses logged but past what the
				 * analysis holds (races_global.c): unseen */
};

/* Analyse a race probe's buffer: 0, or -1 (not a race probe's layout,
 * or a buffer of another size). */
int sibyl_instrumented_races(const struct sibyl_instrumented *in, const void *buffer,
			     size_t size, struct sibyl_races *out);

void sibyl_instrumented_free(struct sibyl_instrumented *in);

/* The plain SPIR bitcode of `kernel` alone: the file's other kernels and
 * the functions only they reach removed, nothing else changed, so that
 * the device links what this kernel needs and no more (a function the
 * file declares and never defines fails the kernels that call it only).
 * *out malloc'd; 0, or -1 with the error line in err. */
int sibyl_spir_only_kernel(const void *bc, size_t size, const char *kernel, void **out,
			   size_t *out_size, char *err, size_t errlen);

/* Static per-opcode counts of the kernel's IR (and the functions it
 * calls), `--static`; -1 with the error line in err. */
int sibyl_static_counts(const void *bc, size_t size, const char *kernel,
			struct sibyl_instcounts *out, char *err, size_t errlen);

/* The thesis' coarser view: merge "load global (N bytes)" into
 * "load global", every "call X" into "call". */
void sibyl_instcounts_coarsen(struct sibyl_instcounts *counts);

/* Oclgrind's listing: "Instructions executed for kernel 'K':" then
 * "%16llu - name" per line, sorted as Oclgrind sorts. */
void sibyl_instcounts_print(FILE *out, const char *kernel,
			    const struct sibyl_instcounts *counts);
/* The same listing of sibyl_static_counts(), titled "Static instruction
 * counts for kernel 'K':": nothing was executed. */
void sibyl_instcounts_print_static(FILE *out, const char *kernel,
				   const struct sibyl_instcounts *counts);

void sibyl_instcounts_free(struct sibyl_instcounts *counts);

#endif
