/* Writes synthetic trace directories for the reader tests. */
#ifndef SIBYL_TEST_TRACE_WRITER_H
#define SIBYL_TEST_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "sibyl/trace_format.h"

struct tw {
	char dir[256];
};

/* A fresh empty directory under $TMPDIR. */
void tw_init(struct tw *w);
/* Remove the directory and everything in it. */
void tw_cleanup(struct tw *w);

/* Write `name` with `len` bytes (len = strlen when (size_t)-1). */
void tw_file(struct tw *w, const char *name, const void *data, size_t len);
void tw_text(struct tw *w, const char *name, const char *text);

/* meta.json with clock (ref_tsc, ref_ns, tsc_per_ns) and wall_ns (0: absent). */
void tw_meta(struct tw *w, uint64_t ref_tsc, uint64_t ref_ns, double rate, uint64_t wall_ns);

/* <pid>.<gen>.proc; end_tsc 0 means the image never exited. */
void tw_proc(struct tw *w, uint32_t pid, uint32_t ppid, uint32_t gen, uint64_t start_tsc,
	     uint64_t start_ns, uint64_t end_tsc, uint64_t end_ns, const char *exe);

/* The header tw_proc writes, to alter before tw_proc_raw writes it. */
struct sibyl_proc_header tw_proc_header(uint32_t pid, uint32_t ppid, uint32_t gen,
					 uint64_t start_tsc, uint64_t start_ns, uint64_t end_tsc,
					 uint64_t end_ns, const char *exe);
void tw_proc_raw(struct tw *w, const struct sibyl_proc_header *h);

struct sibyl_events_header tw_events_header(uint32_t pid, uint32_t gen, uint32_t tid,
					    uint64_t committed);
/* <pid>.<gen>-<tid>.events from a header, records, then `tail` zero bytes. */
void tw_events_raw(struct tw *w, const struct sibyl_events_header *h, const void *records,
		   size_t nrecords, size_t tail);
/* The common case: committed = nrecords, no tail. */
void tw_events(struct tw *w, uint32_t pid, uint32_t gen, uint32_t tid, const void *records,
	       size_t nrecords);

/* A 64-byte call or counters record in a caller's array. */
union tw_record {
	struct sibyl_call_record call;
	struct sibyl_counters_record counters;
	unsigned char bytes[SIBYL_RECORD_SIZE];
};

union tw_record tw_call(uint32_t func, uint16_t depth, uint64_t start_tsc, uint64_t end_tsc,
			uint64_t in_bytes, uint64_t out_bytes, double work);
union tw_record tw_counters(uint32_t func, uint64_t start_tsc, uint16_t mask,
			    uint64_t task_clock, uint64_t cycles);

#endif
