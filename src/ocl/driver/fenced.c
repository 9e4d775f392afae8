/* mmap a region, make its last page PROT_NONE, place the buffer before it. */
#define _GNU_SOURCE
#include "ocl/driver/fenced.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The fences the fault handler knows, each with its report line made in
 * advance (a handler may not allocate).  A sweep's later sizes reuse the
 * oldest slots: their buffers were released. */
#define FENCES 256

static struct {
	uintptr_t page;
	char line[160];
	size_t len;
} fences[FENCES];
static unsigned nfences;
static size_t page_size;
static int report_fd = -1;

static void remember(char *page, const char *name)
{
	unsigned i = nfences++ % FENCES;
	json_t *j = json_pack("{s:s, s:s}", "event", "fence", "arg", name ? name : "");
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;

	fences[i].page = 0;	/* not matched while half written */
	fences[i].len = 0;
	/* The leading newline ends any line a dying thread left half sent. */
	if (text && strlen(text) + 2 < sizeof(fences[i].line))
		fences[i].len = (size_t)snprintf(fences[i].line, sizeof(fences[i].line), "\n%s\n",
						 text);
	fences[i].page = (uintptr_t)page;
	free(text);
	json_decref(j);
}

void *sibyl_fenced_alloc(size_t size, size_t align, const char *name)
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
	page_size = page;
	remember(base + body, name);
	return base + body - rounded;
}

/* SA_RESETHAND: returning runs the faulting access again, which now
 * kills the runner with the signal it would have died of. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)sig, (void)uc;
	for (unsigned i = 0; i < FENCES && i < nfences; i++)
		if (fences[i].len && a >= fences[i].page && a - fences[i].page < page_size) {
			ssize_t n = write(report_fd, fences[i].line, fences[i].len);

			(void)n;	/* the process dies either way */
			return;
		}
}

void sibyl_fenced_watch(int fd)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	report_fd = fd;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}
