/* Reserve inaccessible address space, open a buffer's pages in its middle,
 * place the buffer at their end. */
#define _GNU_SOURCE
#include "ocl/driver/fenced.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Inaccessible address space on each side of a buffer: an index far
 * past the end (or before the start) faults there too, named, instead
 * of landing in the runner's heap (Rodinia's GICOV_kernel reads and
 * writes at random rows of its image).  Address space only: PROT_NONE,
 * MAP_NORESERVE; one page each side when even that is refused. */
#define GUARD_BYTES ((size_t)64 << 20)

/* The fences the fault handler knows, each side with its report line
 * made in advance (a handler may not allocate).  A sweep's later sizes
 * reuse the oldest slots: their buffers were released. */
#define FENCES 256

struct side {
	uintptr_t from, to;
	char line[192];
	size_t len;
};

static struct {
	struct side before, after;
} fences[FENCES];
static unsigned nfences;
static int report_fd = -1;

static void side(struct side *s, const char *from, size_t len, const char *name,
		 const char *where)
{
	json_t *j = json_pack("{s:s, s:s, s:s}", "event", "fence", "arg", name ? name : "",
			      "where", where);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;

	s->len = 0;	/* not matched while half written */
	s->from = (uintptr_t)from;
	s->to = (uintptr_t)from + len;
	/* The leading newline ends any line a dying thread left half sent. */
	if (text && strlen(text) + 3 < sizeof(s->line))
		s->len = (size_t)snprintf(s->line, sizeof(s->line), "\n%s\n", text);
	free(text);
	json_decref(j);
}

/* guard, body, guard: the body readable and writable. */
static char *reserve(size_t body, size_t *guard)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *base;

	for (*guard = GUARD_BYTES;; *guard = page) {
		base = mmap(NULL, *guard * 2 + body, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base != MAP_FAILED)
			break;
		if (*guard == page)
			return NULL;
	}
	if (mprotect(base + *guard, body, PROT_READ | PROT_WRITE) < 0) {
		munmap(base, *guard * 2 + body);
		return NULL;
	}
	return base;
}

void *sibyl_fenced_alloc(size_t size, size_t align, const char *name)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), guard;
	char *base;

	/* Rounding up a size near SIZE_MAX would wrap to a small mapping. */
	if (size > SIZE_MAX - align - 2 * page - 2 * GUARD_BYTES) {
		errno = ENOMEM;
		return NULL;
	}
	size_t rounded = (size + align - 1) & ~(align - 1);
	size_t body = (rounded + page - 1) & ~(page - 1);

	if (!(base = reserve(body ? body : page, &guard)))
		return NULL;
	body = body ? body : page;
	unsigned i = nfences++ % FENCES;

	side(&fences[i].before, base, guard, name, "before");
	side(&fences[i].after, base + guard + body, guard, name, "after");
	return base + guard + body - rounded;
}

static bool in_side(const struct side *s, uintptr_t a)
{
	return s->len && a >= s->from && a < s->to;
}

/* SA_RESETHAND: returning runs the faulting access again, which now
 * kills the runner with the signal it would have died of. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)sig, (void)uc;
	for (unsigned i = 0; i < FENCES && i < nfences; i++) {
		const struct side *s = in_side(&fences[i].after, a) ? &fences[i].after
				     : in_side(&fences[i].before, a) ? &fences[i].before : NULL;

		if (s) {
			ssize_t n = write(report_fd, s->line, s->len);

			(void)n;	/* the process dies either way */
			return;
		}
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
