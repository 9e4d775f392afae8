/*
 * The drainer's spare ring (ring_spare.h).  Made under a temporary name
 * and renamed into place complete, so a thread never takes a spare whose
 * pages are still being provided.  The pages are provided through a
 * mapping (MADV_POPULATE_WRITE): a tmpfs fallocate would leave zeroing
 * them to the thread's first touch.
 */
#define _GNU_SOURCE
#include "trace/ring_spare.h"
#include "core/alloc.h"
#include "core/fs.h"

#include <sibyl/trace_format.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif
#define SPARE_TMP SIBYL_RING_SPARE ".tmp"

static bool provide(int fd, uint64_t bytes)
{
	if (ftruncate(fd, (off_t)bytes) != 0)
		return false;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return false;
	bool ok = madvise(p, bytes, MADV_POPULATE_WRITE) == 0 ||
		  (errno == EINVAL && fallocate(fd, 0, 0, (off_t)bytes) == 0);

	munmap(p, bytes);
	return ok;
}

void sibyl_ring_spare_keep(const char *ring_dir, uint64_t bytes, mode_t mode)
{
	char *spare = sibyl_path_join(ring_dir, SIBYL_RING_SPARE);

	if (access(spare, F_OK) != 0 && errno == ENOENT) {
		char *tmp = sibyl_path_join(ring_dir, SPARE_TMP);
		int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
		bool ok = fd >= 0 && provide(fd, bytes);

		if (fd >= 0)
			close(fd);
		if (!ok || rename(tmp, spare) != 0)
			unlink(tmp);
		free(tmp);
	}
	free(spare);
}

void sibyl_ring_spare_drop(const char *ring_dir)
{
	char *spare = sibyl_path_join(ring_dir, SIBYL_RING_SPARE);
	char *tmp = sibyl_path_join(ring_dir, SPARE_TMP);

	unlink(spare);
	unlink(tmp);
	free(spare);
	free(tmp);
}
