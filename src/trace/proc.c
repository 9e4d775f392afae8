/* <pid>.<gen>.proc: one per process image, written at start and exit. */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/fs.h"

#include <dirent.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
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
	/* Before version 4 only the exit flag was defined. */
	p->flags = h.version >= 4 ? h.flags : h.flags & SIBYL_PROC_EXITED;
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

/* A wait status as waitpid reports it. */
static void end_of_status(struct sibyl_trace_process *p, uint32_t status)
{
	if ((status & 0x7f) == 0) {
		p->end = SIBYL_END_EXIT;
		p->end_code = (int)(status >> 8 & 0xff);
	} else if ((status & 0x7f) != 0x7f) {
		p->end = SIBYL_END_SIGNAL;
		p->end_code = (int)(status & 0x7f);
		p->core_dumped = (status & 0x80) != 0;
	}
}

/*
 * What the image said of itself (exit, _exit) comes first, then what its
 * parent reaped: the parent writes into the pid's last image, so an image
 * it reaped did not exec.  An image followed by the next generation of
 * its pid exec'd.  The root's last image ended as sibyl trace saw it.
 */
void proc_ends(struct proc_file *procs, size_t n, const struct sibyl_trace_meta *meta)
{
	for (size_t i = 0; i < n; i++) {
		struct sibyl_trace_process *p = &procs[i].info;
		uint32_t f = procs[i].flags;
		bool followed = i + 1 < n && procs[i + 1].info.pid == p->pid &&
				procs[i + 1].info.gen == p->gen + 1;

		if (f & SIBYL_PROC_EXIT_CODE) {
			p->end = SIBYL_END_EXIT;
			p->end_code = (int)((f & SIBYL_PROC_EXIT_MASK) >> SIBYL_PROC_EXIT_SHIFT);
		} else if (f & SIBYL_PROC_WAITED) {
			end_of_status(p, f >> SIBYL_PROC_WAIT_SHIFT);
		} else if (followed) {
			p->end = SIBYL_END_EXEC;
		} else if (meta->root_pid == p->pid && meta->exit_kind != SIBYL_EXIT_UNKNOWN) {
			p->end = meta->exit_kind == SIBYL_EXIT_STATUS ? SIBYL_END_EXIT : SIBYL_END_SIGNAL;
			p->end_code = meta->exit_code;
		}
	}
}

const char *sibyl_trace_process_end(const struct sibyl_trace_process *p, char *buf, size_t len)
{
	const char *sig;

	switch (p->end) {
	case SIBYL_END_EXIT:
		snprintf(buf, len, "exit %d", p->end_code);
		break;
	case SIBYL_END_SIGNAL:
		sig = sigabbrev_np(p->end_code);
		if (sig)
			snprintf(buf, len, "killed by SIG%s%s", sig, p->core_dumped ? " (core dumped)" : "");
		else
			snprintf(buf, len, "killed by signal %d", p->end_code);
		break;
	case SIBYL_END_EXEC:
		snprintf(buf, len, "exec'd");
		break;
	default:
		snprintf(buf, len, "%s", p->exited ? "exited" : "end unknown");
	}
	return buf;
}
