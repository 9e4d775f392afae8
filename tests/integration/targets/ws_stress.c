/*
 * The region tracker under load (worksize_stress.sh): four threads
 * allocate blocks of random sizes, hand a quarter of them to each other
 * through a table, and now and then scan the block they are about to
 * free (ws_scan: its input is the whole block, n bytes), while a 200 us
 * timer interrupts them anywhere, allocation hooks included; its handler
 * maps a page, copies into it (ws_copy: output one page) and unmaps it.
 *
 * `ws_stress N FILE`: N iterations per thread; FILE gets one line per
 * ws_scan call, "tid bytes", in each thread's order, for the test to
 * compare with the traced sizes.  Prints one line, the same traced or
 * not.
 */
#define _GNU_SOURCE
#include "ws_shared.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define THREADS 4
#define SLOTS 64

static const char hello[8] = "1234567";
static volatile long handled;

static void on_timer(int sig)
{
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)sig;
	if (page == MAP_FAILED)
		return;
	ws_copy(hello, page, sizeof(hello));
	handled += page[0] == '1';
	munmap(page, 4096);
}

static struct {
	char *p;
	size_t n;
} table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

struct worker {
	unsigned seed;
	long n;
	pid_t tid;
	size_t *scanned;	/* the sizes of the blocks scanned, in order */
	long nscanned;
};

/* Swap (p, *n) with a random slot's block, which another thread may
 * have allocated. */
static char *swap(struct worker *w, char *p, size_t *n)
{
	pthread_mutex_lock(&table_lock);
	int k = rand_r(&w->seed) % SLOTS;
	char *old = table[k].p;
	size_t old_n = table[k].n;

	table[k].p = p;
	table[k].n = *n;
	pthread_mutex_unlock(&table_lock);
	*n = old_n;
	return old;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	for (long i = 0; i < w->n; i++) {
		size_t n = 16 + (size_t)(rand_r(&w->seed) % 4000);
		char *p = malloc(n);

		memset(p, 'x', n - 1);
		p[0] = '4';
		p[n - 1] = 0;
		if (rand_r(&w->seed) % 4 == 0)
			p = swap(w, p, &n);
		if (p && rand_r(&w->seed) % 64 == 0 && ws_scan(p, NULL) == 4)
			w->scanned[w->nscanned++] = n;
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	struct worker w[THREADS];
	pthread_t t[THREADS];
	struct sigaction sa = { .sa_handler = on_timer };
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, stop = { { 0, 0 }, { 0, 0 } };

	/* Wrappers resolve their function at its first call, with dlsym,
	 * which a handler must not run (it may have interrupted malloc). */
	on_timer(0);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .seed = (unsigned)i + 1, .n = atol(argv[1]) };
		w[i].scanned = calloc((size_t)w[i].n / 32 + 64, sizeof(size_t));
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	setitimer(ITIMER_REAL, &stop, NULL);
	for (int k = 0; k < SLOTS; k++)
		free(table[k].p);
	FILE *f = fopen(argv[2], "w");

	if (!f)
		return 1;
	for (int i = 0; i < THREADS; i++)
		for (long k = 0; k < w[i].nscanned; k++)
			fprintf(f, "%d %zu\n", (int)w[i].tid, w[i].scanned[k]);
	fclose(f);
	printf("done\n");
	return 0;
}
