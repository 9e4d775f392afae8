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

/* "start-end perms ..."; false for a line that is not one. */
static bool parse_line(const char *s, const char *end, uintptr_t *start, uintptr_t *stop,
		       bool *writable)
{
	s = hex(s, end, start);
	if (s >= end || *s != '-')
		return false;
	s = hex(s + 1, end, stop);
	if (end - s < 5 || *s != ' ')
		return false;
	*writable = s[2] == 'w';
	return true;
}

/* Insert the writable mappings of the complete lines of buf[0, len);
 * returns the bytes consumed. */
static size_t take_lines(struct region_tree *areas, const char *buf, size_t len, bool *ok)
{
	size_t used = 0;

	for (;;) {
		const char *nl = memchr(buf + used, '\n', len - used);
		uintptr_t start, stop;
		bool writable;

		if (!nl)
			return used;
		if (parse_line(buf + used, nl, &start, &stop, &writable) && writable)
			*ok = region_insert(areas, start, stop) && *ok;
		used = (size_t)(nl - buf) + 1;
	}
}

bool region_maps_read(struct region_tree *areas)
{
	char buf[8192];
	size_t have = 0;
	bool ok = true;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	region_clear(areas);
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);

		if (n <= 0)
			break;
		have += (size_t)n;
		size_t used = take_lines(areas, buf, have, &ok);

		if (!used && have == sizeof(buf))
			used = have;	/* a line longer than the buffer: skip it */
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	close(fd);
	return ok;
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
