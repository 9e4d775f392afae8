/*
 * Areas from /proc/self/maps: every writable mapping, i.e. the static
 * data of the program and its libraries, the brk heap, every thread's
 * stack and the anonymous mappings allocators carve blocks from.  Read
 * with read(2) into a stack buffer: no stdio, no malloc.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

static const char *hex(const char *s, const char *end, uintptr_t *out)
{
	uintptr_t v = 0;

	for (; s < end; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			break;
		v = v * 16 + (uintptr_t)d;
	}
	*out = v;
	return s;
}

/* "start-end perms offset dev inode path"; false for a line that is not
 * one.  *file: the mapping is of a file (inode not 0). */
static bool parse_line(const char *s, const char *end, uintptr_t *start, uintptr_t *stop,
		       bool *readable, bool *writable, bool *file)
{
	s = hex(s, end, start);
	if (s >= end || *s != '-')
		return false;
	s = hex(s + 1, end, stop);
	if (end - s < 5 || *s != ' ')
		return false;
	*readable = s[1] == 'r';
	*writable = s[2] == 'w';
	/* Past perms, offset and dev, the inode. */
	for (int field = 0; field < 3 && s < end; field++) {
		s = memchr(s + 1, ' ', (size_t)(end - s - 1));
		if (!s)
			return *file = false, true;
	}
	*file = s + 1 < end && s[1] != '0';
	return true;
}

/* A module's .data ends in its file-backed mapping and its .bss goes on
 * in the anonymous one right after it: a static buffer may straddle the
 * two (an 8 KiB one measured 4000 bytes written, its part in .data), so
 * they are one area.  Other mappings that touch stay apart (threads'
 * arenas and stacks are areas of their own).  The area being gathered
 * is inserted when the next mapping does not continue it. */
struct pending {
	uintptr_t start, stop;	/* stop == 0: none */
	bool file;		/* it ends in a file's mapping */
};

static void flush(struct region_tree *areas, struct pending *p, bool *ok)
{
	if (p->stop)
		*ok = region_insert(areas, p->start, p->stop) && *ok;
	p->stop = 0;
}

/* Gather the writable mappings of the complete lines of buf[0, len),
 * and put the other readable ones in `readonly`; returns the bytes
 * consumed. */
static size_t take_lines(struct region_tree *areas, struct region_tree *readonly,
			 struct pending *p, const char *buf, size_t len, bool *ok)
{
	size_t used = 0;

	for (;;) {
		const char *nl = memchr(buf + used, '\n', len - used);
		uintptr_t start, stop;
		bool readable = false, writable = false, file;

		if (!nl)
			return used;
		if (!parse_line(buf + used, nl, &start, &stop, &readable, &writable, &file) ||
		    !writable) {
			flush(areas, p, ok);
			if (readable && !writable)
				*ok = region_insert(readonly, start, stop) && *ok;
		} else {
			if (!(p->stop == start && p->file && !file))
				flush(areas, p, ok);
			if (!p->stop)
				p->start = start;
			p->stop = stop;
			p->file = file;
		}
		used = (size_t)(nl - buf) + 1;
	}
}

bool region_maps_read(struct region_tree *areas, struct region_tree *readonly)
{
	char buf[4096];	/* small: it may run on a signal handler's stack */
	size_t have = 0;
	bool ok = true;
	struct pending p = { 0, 0, false };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	region_clear(areas);
	region_clear(readonly);
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);

		if (n <= 0)
			break;
		have += (size_t)n;
		size_t used = take_lines(areas, readonly, &p, buf, have, &ok);

		if (!used && have == sizeof(buf))
			used = have;	/* a line longer than the buffer: skip it */
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	close(fd);
	flush(areas, &p, &ok);
	(void)ok;	/* a set that ran out of room keeps what it holds */
	return true;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_adds + info->dlpi_subs;
	return 1;	/* every object reports the same counters: stop */
}

uint64_t region_maps_dl_generation(void)
{
	uint64_t g = 0;

	dl_iterate_phdr(first_object, &g);
	return g;
}
