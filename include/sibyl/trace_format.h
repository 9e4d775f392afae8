/*
 * The on-disk trace format: the one contract between the in-process
 * runtime (which writes it) and every analysis command (which reads it
 * through trace.h).  Everything here is little-endian and fixed-size so
 * the runtime can write records with plain stores into an mmap'd file:
 * a crash of the traced program loses nothing already stored.
 *
 * A trace is a directory:
 *   meta.json            written by `sibyl trace` (command, clock, wall time)
 *   functions.tsv        "<id hex>\t<library>\t<function>\n", appended by
 *                        each wrapper library when it loads (may repeat)
 *   <pid>.<gen>.proc     one per process image (gen counts execs of a pid)
 *   <pid>.<gen>-<tid>.events   one per thread: header + records
 *
 * Compatibility: a reader accepts a file when its own version is >=
 * min_version of the file; it skips record kinds it does not know.
 */
#ifndef SIBYL_TRACE_FORMAT_H
#define SIBYL_TRACE_FORMAT_H

#include <stdint.h>

/* Version 2: .proc headers count lost threads and calls (a version 1
 * reader still reads version 2 files, without those counts).
 * Version 3: call records say which automatic method measured their
 * sizes and carry its in-out bytes (older readers ignore both).
 * Version 4: call records carry flags (SIBYL_CALL_*), .proc headers how
 * the image ended; older readers ignore both.
 * Version 5: carry records (SIBYL_REC_WS_CARRY); older readers skip them.
 * Version 6: carry records about a call on another thread (flags, tid);
 * older readers find no such call after the record and ignore it. */
#define SIBYL_TRACE_VERSION 6
#define SIBYL_TRACE_MIN_VERSION 1
#define SIBYL_TRACE_ENDIAN_MARK 0x01020304u

#define SIBYL_PROC_MAGIC "SIBYLPRC"
#define SIBYL_EVENTS_MAGIC "SIBYLEVT"

/* Header of a <pid>.<gen>.proc file (exactly 512 bytes). */
struct sibyl_proc_header {
	char magic[8];
	uint16_t version;
	uint16_t min_version;
	uint32_t header_size;
	uint32_t endian;
	uint32_t pid;
	uint32_t ppid;
	uint32_t gen;		/* 0 for the first image of this pid, +1 per exec */
	uint64_t start_tsc;	/* clock pair taken when the runtime started */
	uint64_t start_ns;	/* CLOCK_MONOTONIC */
	uint64_t end_tsc;	/* 0 until the image exits normally */
	uint64_t end_ns;
	uint32_t flags;		/* SIBYL_PROC_* */
	/* Version 2: threads of this image whose buffer could not be created
	 * (descriptors, address space or disk exhausted) and the calls they
	 * made, which are not in any .events file.  Version 1: reserved. */
	uint32_t lost_threads;
	char exe[432];		/* NUL-terminated, truncated if longer (440 bytes in version 1) */
	uint64_t lost_calls;
};

#define SIBYL_PROC_EXITED 0x1	/* end_* are valid */
/* Version 4: how the image ended (docs/runtime.md, "How a process ended"). */
#define SIBYL_PROC_EXIT_CODE 0x2	/* it called exit or _exit: code in bits 8..15 */
#define SIBYL_PROC_WAITED 0x4		/* its parent reaped it: wait status in bits 16..31 */
#define SIBYL_PROC_EXIT_SHIFT 8
#define SIBYL_PROC_EXIT_MASK 0xff00u
#define SIBYL_PROC_WAIT_SHIFT 16

/* A trace directory's path must be shorter than this (bytes) for the
 * runtime: the names of the files inside take at most 40 more, and every
 * path must fit in PATH_MAX (4096). */
#define SIBYL_TRACE_DIR_MAX (4096 - 64)

/* Header of a <pid>.<gen>-<tid>.events file (exactly 128 bytes). */
struct sibyl_events_header {
	char magic[8];
	uint16_t version;
	uint16_t min_version;
	uint32_t header_size;
	uint32_t record_size;
	uint32_t endian;
	uint32_t pid;
	uint32_t gen;
	uint32_t tid;
	uint32_t reserved;
	uint64_t committed;	/* records reserved so far (may include one torn record) */
	uint64_t dropped;	/* calls not recorded: no room, or a signal handler
				   interrupted the recording of another call */
	uint64_t start_tsc;
	uint8_t pad[64];
};

enum sibyl_record_kind {
	SIBYL_REC_NONE = 0,	/* torn: reserved but never filled (crash) */
	SIBYL_REC_CALL = 1,
	SIBYL_REC_COUNTERS = 2,
	SIBYL_REC_WORKSIZE = 3,
	SIBYL_REC_WS_CARRY = 4,
};

/* One intercepted call (64 bytes). */
struct sibyl_call_record {
	uint16_t kind;		/* SIBYL_REC_CALL */
	uint16_t depth;		/* wrapped calls already in progress on this thread */
	uint32_t func;		/* id from functions.tsv */
	uint64_t start_tsc;
	uint64_t end_tsc;
	uint64_t in_bytes;	/* moved to the callee: input and in-out bytes */
	uint64_t out_bytes;	/* moved back: output and in-out bytes */
	double work;
	/* Version 3 (garbage in older files: readers look at the version). */
	uint64_t inout_bytes;	/* of both in_bytes and out_bytes; size_method only */
	uint8_t size_method;	/* enum sibyl_ws_method that measured the sizes; 0: none or manual */
	uint8_t flags;		/* version 4: SIBYL_CALL_* (garbage before: ignore there) */
	uint8_t reserved[6];
};

/* The call did not return to its caller: it was left by longjmp, an
 * exception, exit() or the end of its thread, and end_tsc is when the
 * runtime noticed (docs/runtime.md, "Calls left abnormally"). */
#define SIBYL_CALL_ABANDONED 0x1

/*
 * Counter deltas over one call: they belong to the call record adjacent
 * to this one in the same file (just before or just after it) with the
 * same func and start_tsc.
 */
enum sibyl_counter {
	SIBYL_CNT_TASK_CLOCK_NS,
	SIBYL_CNT_PAGE_FAULTS,
	SIBYL_CNT_CONTEXT_SWITCHES,
	SIBYL_CNT_CPU_MIGRATIONS,
	SIBYL_CNT_CYCLES,
	SIBYL_CNT_INSTRUCTIONS,
	SIBYL_CNT_MAX
};

struct sibyl_counters_record {
	uint16_t kind;		/* SIBYL_REC_COUNTERS */
	uint16_t mask;		/* bit i set: value[i] is valid */
	uint32_t func;
	uint64_t value[SIBYL_CNT_MAX];
	uint64_t start_tsc;	/* equals the call record's start_tsc */
};

/*
 * Automatic work sizes (docs/worksize.md).  Without a manual expression
 * for the function they are the call record's own sizes (size_method
 * says which method).  When a manual expression (worksize.manual) gave
 * the call record's sizes, each automatic method's go into a worksize
 * record of their own, just after the call record with the same func
 * and start_tsc (flags has SIBYL_WS_MANUAL), and `sibyl report
 * --worksize-check` compares the two.  In both places in_bytes and
 * out_bytes include the in-out bytes.
 */
enum sibyl_ws_method {
	SIBYL_WS_FAST = 1,	/* pointer tracking: region bounds */
	SIBYL_WS_FULL = 2,	/* buffer inspection: bytes changed */
	SIBYL_WS_METHODS
};

#define SIBYL_WS_MANUAL 0x1

struct sibyl_worksize_record {
	uint16_t kind;		/* SIBYL_REC_WORKSIZE */
	uint8_t method;		/* enum sibyl_ws_method */
	uint8_t flags;		/* SIBYL_WS_* */
	uint32_t func;
	uint64_t start_tsc;	/* equals the call record's start_tsc */
	uint64_t in_bytes, out_bytes;
	uint64_t inout_bytes;	/* read and written by the call (0: not measured) */
	uint32_t regions;	/* distinct regions the arguments point into */
	uint32_t unknown;	/* pointer arguments into no known region */
	uint64_t reserved[2];
};

/*
 * Version 5: `bytes` of the input `method` measured for an earlier call
 * on this thread, (func, start_tsc), were read by a later call (the one
 * whose records this one follows), which counted them: readers take
 * them off the earlier call's input (docs/worksize.md, "A buffer read
 * in parts").  Older readers skip the record.  Version 6: with
 * SIBYL_CARRY_OTHER_THREAD, the earlier call is one of thread `tid`'s.
 */
#define SIBYL_CARRY_OTHER_THREAD 1

struct sibyl_ws_carry_record {
	uint16_t kind;		/* SIBYL_REC_WS_CARRY */
	uint8_t method;		/* enum sibyl_ws_method */
	uint8_t flags;		/* SIBYL_CARRY_* (version 6; 0 before) */
	uint32_t func;		/* of the earlier call */
	uint64_t start_tsc;	/* of the earlier call */
	uint64_t bytes;
	uint32_t tid;		/* OTHER_THREAD: the earlier call's thread */
	uint32_t pad;
	uint64_t reserved[4];
};

#define SIBYL_RECORD_SIZE 64

/*
 * Live buffers drained by `sibyl trace` (docs/runtime.md).  When the trace
 * directory holds a valid drain.ctl, each thread records into a ring,
 * <pid>.<gen>-<tid>.ring, instead of growing its .events file: the ring's
 * pages are reused, so the traced thread never waits for fresh pages, and
 * `sibyl trace` copies records [tail, events.committed) into the thread's
 * .events file (same format as a directly written one) on the other core.
 * The rings live in drain.ctl's ring_dir, the .events files in the trace.
 * Both files are MAP_SHARED, so a crash of the traced program still loses
 * nothing: whatever is in the ring is drained after the program died.
 */
#define SIBYL_DRAIN_MAGIC "SIBYLDRN"
#define SIBYL_RING_MAGIC "SIBYLRNG"
#define SIBYL_DRAIN_FILE "drain.ctl"
#define SIBYL_RING_DATA_OFFSET 4096
/* A ring file with its pages already provided, kept ready in ring_dir by
 * the drainer: a thread's first call renames it to its own ring's name
 * instead of creating one (the name does not end in ".ring"). */
#define SIBYL_RING_SPARE "spare"

/* drain.ctl, written by the drainer before the program starts (512 bytes). */
struct sibyl_drain_control {
	char magic[8];
	uint32_t version;	/* SIBYL_TRACE_VERSION */
	uint32_t doorbell;	/* futex word: producers bump and wake it */
	uint64_t ring_bytes;	/* data bytes of each ring, a multiple of 4096 */
	uint32_t drainer_pid;
	uint32_t finished;	/* the drainer has stopped: record nothing more */
	uint8_t reserved[32];
	/* Where the rings live: a private directory in /dev/shm when there is
	 * one (creating a file there is ~10x cheaper than in the trace
	 * directory, and threads create rings on their first call), else the
	 * trace directory.  NUL-terminated. */
	char ring_dir[448];
};

/* Header page of a <pid>.<gen>-<tid>.ring file in ring_dir; the records
 * follow at SIBYL_RING_DATA_OFFSET. */
struct sibyl_ring_header {
	struct sibyl_events_header events;	/* copied to the .events file;
						   events.committed is the producer's head */
	char magic[8];		/* SIBYL_RING_MAGIC, stored last */
	uint64_t capacity;	/* records in the ring */
	uint32_t closed;	/* the thread exited: nothing more will come */
	uint32_t abandoned;	/* the drainer gave up on this ring: record nothing more */
	uint8_t pad1[104];
	uint64_t tail;		/* records drained (written by the drainer only) */
	uint8_t pad2[3832];
};

_Static_assert(sizeof(struct sibyl_proc_header) == 512, "proc header size");
_Static_assert(sizeof(struct sibyl_events_header) == 128, "events header size");
_Static_assert(sizeof(struct sibyl_call_record) == SIBYL_RECORD_SIZE, "call record size");
_Static_assert(sizeof(struct sibyl_drain_control) == 512, "drain control size");
_Static_assert(sizeof(struct sibyl_ring_header) == SIBYL_RING_DATA_OFFSET, "ring header size");
_Static_assert(sizeof(struct sibyl_counters_record) == SIBYL_RECORD_SIZE, "counters record size");
_Static_assert(sizeof(struct sibyl_worksize_record) == SIBYL_RECORD_SIZE, "worksize record size");
_Static_assert(sizeof(struct sibyl_ws_carry_record) == SIBYL_RECORD_SIZE, "carry record size");

#endif
