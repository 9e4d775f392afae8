/* <pid>.<gen>.proc: one per process image, written at start and exit. */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/fs.h"

#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int proc_parse(const void *buf, size_t len, struct proc_file *p, char *err, size_t errlen)
{
	struct sibyl_proc_header h;

	memset(p, 0, sizeof(*p));
	if (len < sizeof(h))
		return sibyl_seterr(err, errlen, "truncated header (%zu bytes, need %zu)", len,
				    sizeof(h));
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, SIBYL_PROC_MAGIC, sizeof(h.magic)))
		return sibyl_seterr(err, errlen, "bad magic (not a sibyl process file)");
	if (h.endian == __builtin_bswap32(SIBYL_TRACE_ENDIAN_MARK))
		return sibyl_seterr(err, errlen, "written with the other byte order");
	if (h.endian != SIBYL_TRACE_ENDIAN_MARK)
		return sibyl_seterr(err, errlen, "bad byte-order mark 0x%08x", h.endian);
	if (h.version == 0 || h.min_version == 0 || h.min_version > h.version)
		return sibyl_seterr(err, errlen, "bad version %u (min_version %u)", h.version,
				    h.min_version);
	if (h.min_version > SIBYL_TRACE_READER_VERSION)
		return sibyl_seterr(err, errlen,
				    "unsupported format version %u (needs a reader >= %u, "
				    "this sibyl reads version %u)",
				    h.version, h.min_version, SIBYL_TRACE_READER_VERSION);
	if (h.header_size < sizeof(h) || h.header_size > len)
		return sibyl_seterr(err, errlen, "bad header size %u", h.header_size);
	p->info.pid = h.pid;
	p->info.ppid = h.ppid;
	p->info.gen = h.gen;
	/* Version 1 had no lost counts, and 8 more bytes of exe. */
	p->info.exe = sibyl_xstrndup((const char *)buf + offsetof(struct sibyl_proc_header, exe),
				     h.version >= 2 ? sizeof(h.exe) : sizeof(h.exe) + sizeof(h.lost_calls));
	if (h.version >= 2) {
		p->info.lost_threads = h.lost_threads;
		p->info.lost_calls = h.lost_calls;
	}
	p->info.start_ns = h.start_ns;
	p->info.has_proc_file = true;
	p->start_tsc = h.start_tsc;
	/* A crash leaves end_* zero; trust them only with the exit flag. */
	if ((h.flags & SIBYL_PROC_EXITED) && h.end_tsc && h.end_ns >= h.start_ns) {
		p->info.exited = true;
		p->info.end_ns = h.end_ns;
		p->end_tsc = h.end_tsc;
	}
	return 0;
}

int sibyl_trace_lost(const char *dir, uint64_t *threads, uint64_t *calls)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char why[256];

	*threads = *calls = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), len;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".proc"))
			continue;
		char *path = sibyl_path_join(dir, e->d_name);
		char *buf = sibyl_read_file(path, TRACE_PROC_MAX, &len, NULL, 0);
		struct proc_file p;

		if (buf && proc_parse(buf, len, &p, why, sizeof(why)) == 0) {
			*threads += p.info.lost_threads;
			*calls += p.info.lost_calls;
			free((char *)p.info.exe);
		}
		free(buf);
		free(path);
	}
	closedir(d);
	return 0;
}
