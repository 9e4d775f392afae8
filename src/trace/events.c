/*
 * One <pid>.<gen>-<tid>.events file held in memory: header validation and
 * a cursor over its records.  Pure (no I/O) so the fuzzer can drive it.
 * Records are copied out with memcpy: a fuzzer's buffer has no alignment.
 */
#include "trace/internal.h"
#include "core/log.h"

#include <stdbool.h>
#include <string.h>

static int check_identity(const struct sibyl_events_header *h, char *err, size_t errlen)
{
	if (memcmp(h->magic, SIBYL_EVENTS_MAGIC, sizeof(h->magic)))
		return sibyl_seterr(err, errlen, "bad magic (not a sibyl events file)");
	if (h->endian == __builtin_bswap32(SIBYL_TRACE_ENDIAN_MARK))
		return sibyl_seterr(err, errlen, "written with the other byte order");
	if (h->endian != SIBYL_TRACE_ENDIAN_MARK)
		return sibyl_seterr(err, errlen, "bad byte-order mark 0x%08x", h->endian);
	if (h->version == 0 || h->min_version == 0 || h->min_version > h->version)
		return sibyl_seterr(err, errlen, "bad version %u (min_version %u)",
				    h->version, h->min_version);
	if (h->min_version > SIBYL_TRACE_READER_VERSION)
		return sibyl_seterr(err, errlen,
				    "unsupported format version %u (needs a reader >= %u, "
				    "this sibyl reads version %u)",
				    h->version, h->min_version, SIBYL_TRACE_READER_VERSION);
	return 0;
}

static int check_sizes(const struct sibyl_events_header *h, size_t len, char *err,
		       size_t errlen)
{
	if (h->record_size != SIBYL_RECORD_SIZE)
		return sibyl_seterr(err, errlen, "record size %u, expected %u",
				    h->record_size, SIBYL_RECORD_SIZE);
	/* A later version may grow the header; records start after it. */
	if (h->header_size < sizeof(*h) || h->header_size > len)
		return sibyl_seterr(err, errlen, "bad header size %u (file has %zu bytes)",
				    h->header_size, len);
	uint64_t room = (len - h->header_size) / SIBYL_RECORD_SIZE;

	if (h->committed > room)
		return sibyl_seterr(err, errlen,
				    "truncated: %llu records committed, room for %llu",
				    (unsigned long long)h->committed,
				    (unsigned long long)room);
	return 0;
}

int events_header_check(const void *buf, size_t len, struct sibyl_events_info *info,
			struct events_cursor *cur, char *err, size_t errlen)
{
	struct sibyl_events_header h;

	memset(info, 0, sizeof(*info));
	if (len < sizeof(h))
		return sibyl_seterr(err, errlen, "truncated header (%zu bytes, need %zu)", len,
				    sizeof(h));
	memcpy(&h, buf, sizeof(h));
	if (check_identity(&h, err, errlen) || check_sizes(&h, len, err, errlen))
		return -1;
	info->pid = h.pid;
	info->gen = h.gen;
	info->tid = h.tid;
	info->committed = h.committed;
	info->dropped = h.dropped;
	info->start_tsc = h.start_tsc;
	/* No foreign carries until the reader links them (reader.c). */
	*cur = (struct events_cursor){ .rec = (const unsigned char *)buf + h.header_size,
				       .n = h.committed, .version = h.version, .tid = h.tid };
	return 0;
}

static uint16_t kind_at(const struct events_cursor *cur, uint64_t i)
{
	uint16_t kind;

	memcpy(&kind, cur->rec + i * SIBYL_RECORD_SIZE, sizeof(kind));
	return kind;
}

static bool counters_match(const struct sibyl_counters_record *cnt,
			   const struct sibyl_call_record *call)
{
	return cnt->func == call->func && cnt->start_tsc == call->start_tsc;
}

static bool worksize_match(const struct sibyl_worksize_record *ws,
			   const struct sibyl_call_record *call)
{
	return ws->func == call->func && ws->start_tsc == call->start_tsc &&
	       ws->method > 0 && ws->method < SIBYL_WS_METHODS;
}

/* A record at cur->i that belongs to `call` (counters or worksize, same
 * func and start_tsc): taken, true.  Else it may be the next call's. */
static bool take_attached(struct events_cursor *cur, const struct sibyl_call_record *call,
			  struct events_attached *att, struct sibyl_events_info *info)
{
	const unsigned char *at = cur->rec + cur->i * SIBYL_RECORD_SIZE;
	uint16_t kind = kind_at(cur, cur->i);

	if (kind == SIBYL_REC_COUNTERS && !att->cnt.kind) {
		memcpy(&att->cnt, at, sizeof(att->cnt));
		if (!counters_match(&att->cnt, call)) {
			memset(&att->cnt, 0, sizeof(att->cnt));
			return false;
		}
		info->counters++;
	} else if (kind == SIBYL_REC_WS_CARRY) {
		/* About an earlier call (take_carried): not this one's. */
	} else if (kind == SIBYL_REC_WORKSIZE) {
		struct sibyl_worksize_record ws;

		memcpy(&ws, at, sizeof(ws));
		if (!worksize_match(&ws, call) || att->ws[ws.method].kind)
			return false;
		att->ws[ws.method] = ws;
	} else {
		return false;
	}
	cur->i++;
	return true;
}

/* Version 3 call records carry the automatic method's sizes themselves:
 * attached as if from a worksize record.  Before that, the bytes were
 * reserved and may hold anything. */
static void sizes_of_call(const struct events_cursor *cur, struct sibyl_call_record *call,
			  struct events_attached *att)
{
	unsigned m = call->size_method;

	if (cur->version < 3) {
		call->inout_bytes = 0;
		call->size_method = 0;
		return;
	}
	if (m >= SIBYL_WS_METHODS)
		call->size_method = 0;
	if (m == 0 || m >= SIBYL_WS_METHODS)
		return;
	att->ws[m] = (struct sibyl_worksize_record){
		.kind = SIBYL_REC_WORKSIZE, .method = (uint8_t)m, .func = call->func,
		.start_tsc = call->start_tsc, .in_bytes = call->in_bytes,
		.out_bytes = call->out_bytes, .inout_bytes = call->inout_bytes,
	};
}

/*
 * Version 5: a later call measured by worksize.full may have read part of
 * the input counted for this one (a buffer read in parts), and says so
 * in a carry record after its own call record: the bytes come off this
 * call's input.  That call is the next one at this depth measured by
 * full, before the call enclosing both ends; a window of records bounds
 * the search (docs/worksize.md).
 */
#define CARRY_WINDOW 4096

/* Records are read with memcpy: a trace file need not keep them aligned
 * (the fuzzer feeds it any bytes). */
static bool measured_full(const unsigned char *at, uint16_t kind)
{
	struct sibyl_call_record call;
	struct sibyl_worksize_record ws;

	if (kind == SIBYL_REC_CALL) {
		memcpy(&call, at, sizeof(call));
		return call.size_method == SIBYL_WS_FULL;
	}
	if (kind != SIBYL_REC_WORKSIZE)
		return false;
	memcpy(&ws, at, sizeof(ws));
	return ws.method == SIBYL_WS_FULL;
}

/* Bytes a later call read: off the call's full input (and off its call
 * record's when full sized it). */
static void take_off(struct sibyl_call_record *call, struct sibyl_worksize_record *full,
		     uint64_t bytes)
{
	bytes = bytes < full->in_bytes ? bytes : full->in_bytes;
	full->in_bytes -= bytes;
	if (call->size_method == SIBYL_WS_FULL)
		call->in_bytes -= bytes < call->in_bytes ? bytes : call->in_bytes;
}

int foreign_carry_cmp(const void *a, const void *b)
{
	const struct foreign_carry *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->start_tsc < y->start_tsc ? -1 : x->start_tsc > y->start_tsc;
}

/* Version 6: calls on other threads that read part of this call's input
 * (it may have been running meanwhile), found in every file's carry
 * records. */
static void take_foreign(const struct events_cursor *cur, struct sibyl_call_record *call,
			 struct sibyl_worksize_record *full)
{
	struct foreign_carry key = { cur->tid, call->func, call->start_tsc, 0 };
	size_t lo = 0, hi = cur->nforeign;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (foreign_carry_cmp(&cur->foreign[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < cur->nforeign && !foreign_carry_cmp(&cur->foreign[lo], &key); lo++)
		take_off(call, full, cur->foreign[lo].bytes);
}

static void take_carried(const struct events_cursor *cur, struct sibyl_call_record *call,
			 struct events_attached *att)
{
	struct sibyl_worksize_record *full = &att->ws[SIBYL_WS_FULL];
	bool at_depth = false, passed = false;	/* records of a call at this depth; one measured */

	if (cur->version < 5 || !full->kind)
		return;
	if (cur->nforeign)
		take_foreign(cur, call, full);
	for (uint64_t j = cur->i; j < cur->n && j - cur->i < CARRY_WINDOW; j++) {
		const unsigned char *at = cur->rec + j * SIBYL_RECORD_SIZE;
		uint16_t kind = kind_at(cur, j);
		struct sibyl_ws_carry_record c;

		if (kind == SIBYL_REC_CALL) {
			struct sibyl_call_record other;

			memcpy(&other, at, sizeof(other));
			uint16_t depth = other.depth;

			if (depth < call->depth || (depth == call->depth && passed))
				return;
			at_depth = depth == call->depth;
		}
		passed |= at_depth && measured_full(at, kind);
		if (kind != SIBYL_REC_WS_CARRY)
			continue;
		memcpy(&c, at, sizeof(c));
		if (c.method != SIBYL_WS_FULL || c.func != call->func ||
		    c.start_tsc != call->start_tsc || (c.flags & SIBYL_CARRY_OTHER_THREAD))
			continue;
		take_off(call, full, c.bytes);
		return;
	}
}

/* The call at cur->i and the records right after it that are its own
 * (the runtime may also write a counters record before it). */
static void take_call(struct events_cursor *cur, struct sibyl_call_record *call,
		      struct events_attached *att, struct sibyl_events_info *info)
{
	memcpy(call, cur->rec + cur->i * SIBYL_RECORD_SIZE, sizeof(*call));
	sizes_of_call(cur, call, att);
	/* Before version 4 the flags were never written: a ring slot may
	 * hold what an earlier record left there. */
	if (cur->version < 4)
		call->flags = 0;
	cur->i++;
	info->calls++;
	while (cur->i < cur->n && take_attached(cur, call, att, info))
		;
	take_carried(cur, call, att);
}

/* A counters record at cur->i that precedes its call: take both. */
static int take_counters_first(struct events_cursor *cur, struct sibyl_call_record *call,
			       struct events_attached *att, struct sibyl_events_info *info)
{
	struct sibyl_counters_record first;

	memcpy(&first, cur->rec + cur->i * SIBYL_RECORD_SIZE, sizeof(first));
	cur->i++;
	if (cur->i < cur->n && kind_at(cur, cur->i) == SIBYL_REC_CALL) {
		memcpy(call, cur->rec + cur->i * SIBYL_RECORD_SIZE, sizeof(*call));
		if (counters_match(&first, call)) {
			att->cnt = first;
			info->counters++;
			take_call(cur, call, att, info);
			return 1;
		}
	}
	info->skipped++;	/* its call was torn or dropped */
	return 0;
}

int events_next(struct events_cursor *cur, struct sibyl_call_record *call,
		struct events_attached *att, struct sibyl_events_info *info)
{
	memset(att, 0, sizeof(*att));
	while (cur->i < cur->n) {
		uint16_t kind = kind_at(cur, cur->i);

		if (kind == SIBYL_REC_CALL) {
			take_call(cur, call, att, info);
			return 1;
		}
		if (kind == SIBYL_REC_COUNTERS) {
			if (take_counters_first(cur, call, att, info))
				return 1;
			continue;
		}
		/* Torn records are the crash case; other kinds come from a
		 * newer runtime and are skippable by the versioning rules. */
		if (kind == SIBYL_REC_NONE)
			info->torn++;
		else if (kind != SIBYL_REC_WS_CARRY)	/* taken with its earlier call */
			info->skipped++;
		cur->i++;
	}
	return 0;
}

int sibyl_events_parse(const void *buf, size_t len, struct sibyl_events_info *info,
		       char *err, size_t errlen)
{
	struct events_cursor cur;
	struct sibyl_call_record call;
	struct events_attached att;

	if (events_header_check(buf, len, info, &cur, err, errlen))
		return -1;
	while (events_next(&cur, &call, &att, info)) {
		if (info->calls == 1 || call.start_tsc < info->first_tsc)
			info->first_tsc = call.start_tsc;
		if (call.end_tsc > info->last_tsc)
			info->last_tsc = call.end_tsc;
	}
	return 0;
}
