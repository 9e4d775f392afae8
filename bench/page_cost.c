/*
 * What bounds the cost of keeping every record: the kernel must provide
 * a fresh page-cache page for every 4 KiB of trace.  Maps a new file in
 * DIR the way the runtime does (MAP_SHARED + MADV_POPULATE_WRITE) and
 * prints the cost per page and per 64-byte record.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 64, len = mib << 20;
	char path[4096];
	struct timespec a, b;

	snprintf(path, sizeof(path), "%s/page-cost.%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
		perror(path);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED || madvise(p, len, MADV_POPULATE_WRITE) != 0) {
		perror("mmap/madvise");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);

	printf("page_ns %.1f record_ns %.2f\n", ns / (len / 4096), ns / (len / 64));
	munmap(p, len);
	close(fd);
	unlink(path);
	return 0;
}
