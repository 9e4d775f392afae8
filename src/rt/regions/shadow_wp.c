/*
 * Pages that cannot have changed need no comparison.  The kernel keeps
 * the bit that says so when a range is write-protected through a
 * userfaultfd in asynchronous mode (Linux 6.7): the first write to a
 * protected page, by any thread or by the kernel (read(2) into it),
 * clears its protection without stopping the writer, and PAGEMAP_SCAN on
 * /proc/self/pagemap reports which pages are still protected.  Soft-dirty
 * bits would do the same for the whole process at once (writing 4 to
 * /proc/self/clear_refs), but clearing them walks every page table of
 * the process and write-protects all of its memory on each call, and
 * this VM's kernel is built without them (CONFIG_MEM_SOFT_DIRTY unset:
 * the bit never reads 1).
 *
 * Where it pays: a scan costs a system call (about 1.5 us for 64 pages
 * here, 4 us for 17 under load) against ~0.1 to 0.3 us of memcmp per page
 * and pass, so ranges of WP_MIN_PAGES pages or more only: on three 1 MiB
 * buffers passed unchanged, 0.17-0.22 ms per call instead of 0.63-0.70
 * (load 8).  A written page is never protected
 * again: each page costs at most one write fault (~3 us here), and the
 * library's own writes inside a timed call cannot keep paying it.  A
 * range is registered once (kept in a table); no memory per page beyond
 * the kernel's page-table bit.
 *
 * Falls back, comparing everything, when the kernel lacks any of it, a
 * registration is refused (another userfaultfd holds the range, a file
 * mapping), after fork (the descriptors are the parent's), or when the
 * table is full.  Lock held throughout.
 */
#define _GNU_SOURCE
#include "rt/regions/regions.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than these headers (Linux 6.7). */
#define FEATURE_WP_UNPOPULATED (1ULL << 13)
#define FEATURE_WP_ASYNC (1ULL << 15)
struct scan_region {
	uint64_t start, end, categories;
};
struct scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN_IOCTL _IOWR('f', 16, struct scan_arg)
#define IS_WPALLOWED (1ULL << 0)
#define IS_WRITTEN (1ULL << 1)
#define IS_FILE (1ULL << 2)
#define IS_PRESENT (1ULL << 3)

#define MAX_RANGES 256

static int state;	/* 0: not tried, 1: on, -1: off */
static int uffd = -1, pagemap = -1;
static struct region registered[MAX_RANGES];
static bool refused[MAX_RANGES];	/* tried once, refused: compared as before */
static unsigned nregistered;

static bool start_up(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = FEATURE_WP_ASYNC | FEATURE_WP_UNPOPULATED };

	state = -1;
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (uffd < 0)
		return false;
	pagemap = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (ioctl(uffd, UFFDIO_API, &api) || pagemap < 0)
		return false;
	state = 1;
	return true;
}

/* The entry for a range tried before: 1 registered, -1 refused, 0 none. */
static int known(uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < nregistered; i++)
		if (lo >= registered[i].start && hi <= registered[i].end)
			return refused[i] ? -1 : 1;
	return 0;
}

/* Register and protect [lo, hi) (page-aligned) once. */
static bool track(uintptr_t lo, uintptr_t hi)
{
	int k = known(lo, hi);

	if (k || nregistered == MAX_RANGES)
		return k > 0;
	struct uffdio_register reg = { .range = { lo, hi - lo }, .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .range = { lo, hi - lo },
					  .mode = UFFDIO_WRITEPROTECT_MODE_WP };

	/* Refused (a file mapping, another userfaultfd): not asked again. */
	refused[nregistered] = ioctl(uffd, UFFDIO_REGISTER, &reg) != 0 ||
			       ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0;
	registered[nregistered++] = (struct region){ lo, hi };
	return !refused[nregistered - 1];
}

/* Bits of clean[] for the pages of [start, end), from page `first` on. */
static void mark_clean(uint64_t *clean, uintptr_t first, uint64_t start, uint64_t end)
{
	for (uintptr_t p = start / SHADOW_PAGE; p < end / SHADOW_PAGE; p++)
		clean[(p - first) / 64] |= 1ull << ((p - first) % 64);
}

bool shadow_wp_clean(uintptr_t lo, uintptr_t hi, uint64_t *clean)
{
	uintptr_t first = lo / SHADOW_PAGE, last = first + wp_pages(lo, hi);

	if (last - first < WP_MIN_PAGES || state < 0 || (!state && !start_up()))
		return false;
	if (last - first > WP_MAX_PAGES)
		last = first + WP_MAX_PAGES;
	if (!track(first * SHADOW_PAGE, last * SHADOW_PAGE))
		return false;
	struct scan_region vec[64];
	struct scan_arg arg = { .size = sizeof(arg), .start = first * SHADOW_PAGE,
				.end = last * SHADOW_PAGE, .vec = (uintptr_t)vec, .vec_len = 64,
				.return_mask = IS_WPALLOWED | IS_WRITTEN | IS_FILE | IS_PRESENT };
	long n = ioctl(pagemap, PAGEMAP_SCAN_IOCTL, &arg);

	if (n < 0)
		return false;
	for (unsigned k = 0; k < WP_MAX_PAGES / 64; k++)
		clean[k] = 0;
	/* Beyond walk_end (the vector filled up): not clean.  Shared memory
	 * (a file page: shmem) may be written through another mapping,
	 * which leaves this one's protection: never clean. */
	for (long i = 0; i < n; i++)
		if ((vec[i].categories & (IS_WPALLOWED | IS_WRITTEN | IS_FILE | IS_PRESENT)) ==
		    (IS_WPALLOWED | IS_PRESENT))
			mark_clean(clean, first, vec[i].start, vec[i].end);
	return true;
}

/* The child's memory is not what the descriptors track. */
void shadow_wp_after_fork(void)
{
	state = -1;
}
