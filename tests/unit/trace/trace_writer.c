#define _GNU_SOURCE
#include "trace_writer.h"
#include "core/fs.h"
#include "core/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tw_init(struct tw *w)
{
	snprintf(w->dir, sizeof(w->dir), "%s/sibyl-trace-test-XXXXXX", sibyl_tmpdir());
	if (!mkdtemp(w->dir))
		abort();
}

void tw_cleanup(struct tw *w)
{
	sibyl_remove_tree(w->dir);
}

void tw_file(struct tw *w, const char *name, const void *data, size_t len)
{
	char *path = sibyl_path_join(w->dir, name);
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
	free(path);
}

void tw_text(struct tw *w, const char *name, const char *text)
{
	tw_file(w, name, text, strlen(text));
}

void tw_meta(struct tw *w, uint64_t ref_tsc, uint64_t ref_ns, double rate, uint64_t wall_ns)
{
	char buf[1024], wall[160] = "";

	if (wall_ns)
		snprintf(wall, sizeof(wall),
			 ", \"start_ns\": %llu, \"end_ns\": %llu, \"wall_ns\": %llu,"
			 " \"exit\": {\"status\": 3}",
			 (unsigned long long)ref_ns, (unsigned long long)(ref_ns + wall_ns),
			 (unsigned long long)wall_ns);
	snprintf(buf, sizeof(buf),
		 "{\"format\": \"sibyl-trace\", \"version\": 1, \"min_version\": 1,"
		 " \"command\": [\"./app\", \"--size\", \"8\"], \"cwd\": \"/w\","
		 " \"host\": {\"hostname\": \"h\"}, \"root_pid\": 100,"
		 " \"clock\": {\"source\": \"tsc\", \"ref_tsc\": %llu, \"ref_ns\": %llu,"
		 " \"tsc_per_ns\": %.17g, \"invariant\": true}%s}\n",
		 (unsigned long long)ref_tsc, (unsigned long long)ref_ns, rate, wall);
	tw_text(w, "meta.json", buf);
}

struct sibyl_proc_header tw_proc_header(uint32_t pid, uint32_t ppid, uint32_t gen,
					 uint64_t start_tsc, uint64_t start_ns, uint64_t end_tsc,
					 uint64_t end_ns, const char *exe)
{
	struct sibyl_proc_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SIBYL_PROC_MAGIC, 8);
	h.version = SIBYL_TRACE_VERSION;
	h.min_version = SIBYL_TRACE_MIN_VERSION;
	h.header_size = sizeof(h);
	h.endian = SIBYL_TRACE_ENDIAN_MARK;
	h.pid = pid;
	h.ppid = ppid;
	h.gen = gen;
	h.start_tsc = start_tsc;
	h.start_ns = start_ns;
	if (end_tsc) {
		h.end_tsc = end_tsc;
		h.end_ns = end_ns;
		h.flags = SIBYL_PROC_EXITED;
	}
	snprintf(h.exe, sizeof(h.exe), "%s", exe);
	return h;
}

void tw_proc_raw(struct tw *w, const struct sibyl_proc_header *h)
{
	char name[64];

	snprintf(name, sizeof(name), "%u.%u.proc", h->pid, h->gen);
	tw_file(w, name, h, sizeof(*h));
}

void tw_proc(struct tw *w, uint32_t pid, uint32_t ppid, uint32_t gen, uint64_t start_tsc,
	     uint64_t start_ns, uint64_t end_tsc, uint64_t end_ns, const char *exe)
{
	struct sibyl_proc_header h = tw_proc_header(pid, ppid, gen, start_tsc, start_ns, end_tsc,
						    end_ns, exe);

	tw_proc_raw(w, &h);
}

struct sibyl_events_header tw_events_header(uint32_t pid, uint32_t gen, uint32_t tid,
					    uint64_t committed)
{
	struct sibyl_events_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SIBYL_EVENTS_MAGIC, 8);
	h.version = SIBYL_TRACE_VERSION;
	h.min_version = SIBYL_TRACE_MIN_VERSION;
	h.header_size = sizeof(h);
	h.record_size = SIBYL_RECORD_SIZE;
	h.endian = SIBYL_TRACE_ENDIAN_MARK;
	h.pid = pid;
	h.gen = gen;
	h.tid = tid;
	h.committed = committed;
	return h;
}

void tw_events_raw(struct tw *w, const struct sibyl_events_header *h, const void *records,
		   size_t nrecords, size_t tail)
{
	size_t len = sizeof(*h) + nrecords * SIBYL_RECORD_SIZE + tail;
	unsigned char *buf = calloc(1, len);
	char name[64];

	memcpy(buf, h, sizeof(*h));
	if (nrecords)
		memcpy(buf + sizeof(*h), records, nrecords * SIBYL_RECORD_SIZE);
	snprintf(name, sizeof(name), "%u.%u-%u.events", h->pid, h->gen, h->tid);
	tw_file(w, name, buf, len);
	free(buf);
}

void tw_events(struct tw *w, uint32_t pid, uint32_t gen, uint32_t tid, const void *records,
	       size_t nrecords)
{
	struct sibyl_events_header h = tw_events_header(pid, gen, tid, nrecords);

	tw_events_raw(w, &h, records, nrecords, 0);
}

union tw_record tw_call(uint32_t func, uint16_t depth, uint64_t start_tsc, uint64_t end_tsc,
			uint64_t in_bytes, uint64_t out_bytes, double work)
{
	union tw_record r;

	memset(&r, 0, sizeof(r));
	r.call = (struct sibyl_call_record){ .kind = SIBYL_REC_CALL, .depth = depth,
					     .func = func, .start_tsc = start_tsc,
					     .end_tsc = end_tsc, .in_bytes = in_bytes,
					     .out_bytes = out_bytes, .work = work };
	return r;
}

union tw_record tw_counters(uint32_t func, uint64_t start_tsc, uint16_t mask,
			    uint64_t task_clock, uint64_t cycles)
{
	union tw_record r;

	memset(&r, 0, sizeof(r));
	r.counters.kind = SIBYL_REC_COUNTERS;
	r.counters.func = func;
	r.counters.start_tsc = start_tsc;
	r.counters.mask = mask;
	r.counters.value[SIBYL_CNT_TASK_CLOCK_NS] = task_clock;
	r.counters.value[SIBYL_CNT_CYCLES] = cycles;
	return r;
}
