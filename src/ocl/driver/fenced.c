/* mmap a region, make its last page PROT_NONE, place the buffer before it. */
#include "ocl/driver/fenced.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void *sibyl_fenced_alloc(size_t size, size_t align)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *base;

	/* Rounding up a size near SIZE_MAX would wrap to a small mapping. */
	if (size > SIZE_MAX - align - 2 * page) {
		errno = ENOMEM;
		return NULL;
	}
	size_t rounded = (size + align - 1) & ~(align - 1);
	size_t body = (rounded + page - 1) & ~(page - 1);

	base = mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base + body, page, PROT_NONE) < 0) {
		munmap(base, body + page);
		return NULL;
	}
	return base + body - rounded;
}
