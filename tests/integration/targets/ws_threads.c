/*
 * worksize.full with threads (worksize_full.sh).  `shared N`: two
 * threads, each with its own three 1000-byte blocks, all six allocated
 * together so that the threads' blocks share pages, call ws_copy and
 * ws_bump N times at once; every call's sizes must be its own.
 * `during`: another thread writes into the output block of a call while
 * the call is paused.  `pages FILE` (below): a big buffer changed in
 * every way between calls.  `parts` (below): a buffer read in two parts
 * by calls on two threads.  `scan N`, `two` and `fork` (below): a NULL
 * pointer array, two parts carried from two calls, a carry after fork.
 * `handoff N` and `stale` (below): buffers another thread allocated last.
 * `recycled` (below): a buffer in memory an earlier one left data in.
 * `arena` (below): a pointer into another thread's arena, in no block.
 * Prints checksums, the same traced or not.
 */
#include "ws_shared.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define LEN 1000

struct worker {
	char *in, *out, *buf;
	long n;
	int id;
	unsigned long sum;
};

/* Every byte differs from the one the last iteration left, and none is 0. */
static void fill(char *p, long iter, int id)
{
	for (int i = 0; i < LEN; i++)
		p[i] = (char)((iter * 2 + i * 3 + id) % 100 + 1);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (long it = 0; it < w->n; it++) {
		fill(w->in, it, w->id);
		ws_copy(w->in, w->out, LEN);
		fill(w->buf, it, w->id + 7);
		ws_bump(w->buf, LEN);
		for (int i = 0; i < LEN; i++)
			w->sum += (unsigned char)w->out[i] + (unsigned char)w->buf[i];
	}
	return NULL;
}

static int shared(long n)
{
	struct worker w[2];
	pthread_t t[2];

	for (int k = 0; k < 2; k++)
		w[k] = (struct worker){ malloc(LEN), malloc(LEN), malloc(LEN), n, k, 0 };
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, work, &w[k]))
			return 1;
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("%lu %lu\n", w[0].sum, w[1].sum);
	return 0;
}

static void *meddle(void *out)
{
	ws_step_wait(1);
	memset((char *)out + LEN, 0x5a, LEN / 2);
	ws_step_set(2);
	return NULL;
}

static int during(void)
{
	char *in = malloc(LEN), *out = malloc(2 * LEN), *tmp = malloc(LEN / 2);
	pthread_t t;

	fill(in, 0, 0);
	if (pthread_create(&t, NULL, meddle, out))
		return 1;
	ws_copy_hold(in, out, LEN);
	pthread_join(t, NULL);
	ws_copy(out + LEN, tmp, LEN / 2);
	printf("%d %d\n", out[3], tmp[7]);
	return 0;
}

/* Writes 8 bytes of a big buffer from another thread. */
static void *poke(void *p)
{
	memset(p, 0, 8);
	return NULL;
}

/* `pages FILE`: a 1 MiB buffer passed again and again, changed between
 * calls in every way a page can be written: unchanged, a store, read(2)
 * from FILE (the kernel writes), another thread, madvise(MADV_DONTNEED)
 * (the page comes back zero without a write); then shared memory that a
 * child process writes through its own mapping.  Write protection may skip
 * the pages nobody wrote, never one that changed. */
static int pages(const char *file)
{
	size_t big = 1 << 20;
	char *in = malloc(big), *out = malloc(16);
	uintptr_t page = ((uintptr_t)in + 300000 + 4095) & ~(uintptr_t)4095;
	int fd = open(file, O_RDONLY);
	pthread_t t;

	for (size_t i = 0; i < big; i++)
		in[i] = (char)(i % 251 + 1);
	ws_copy(in, out, 16);
	ws_copy(in, out, 16);
	memset(in + 500000, 0, 8);
	ws_copy(in, out, 16);
	if (fd < 0 || read(fd, in + 700000, 100) != 100)
		return 1;
	close(fd);
	ws_copy(in, out, 16);
	if (pthread_create(&t, NULL, poke, in + 900000) || pthread_join(t, NULL))
		return 1;
	ws_copy(in, out, 16);
	madvise((void *)page, 4096, MADV_DONTNEED);
	ws_copy(in, out, 16);
	/* Shared memory written by a child, through its own mapping. */
	char *sh = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED)
		return 1;
	memcpy(sh, in, big);
	ws_copy(sh, out, 16);
	ws_copy(sh, out, 16);
	pid_t child = fork();

	if (child == 0) {
		memset(sh + 600000, 0, 8);
		_exit(0);
	}
	if (child < 0 || waitpid(child, NULL, 0) != child)
		return 1;
	ws_copy(sh, out, 16);
	printf("%d %d %d\n", in[700000], ((char *)page)[5], sh[600001]);
	return 0;
}

#define PART 4096

struct part {
	const char *in;
	char *out;
	int hold;	/* ws_copy_hold: running until step 2 */
};

static void *read_part(void *arg)
{
	struct part *p = arg;

	if (p->hold)
		ws_copy_hold(p->in, p->out, PART);
	else
		ws_copy(p->in, p->out, PART);
	return NULL;
}

/* Both parts' calls: one after the other (hold 0), or the second while
 * the first is still running (hold 1). */
static int both_parts(struct part *p)
{
	pthread_t t[2];

	if (!p[0].hold)
		return pthread_create(&t[0], NULL, read_part, &p[0]) || pthread_join(t[0], NULL) ||
		       pthread_create(&t[1], NULL, read_part, &p[1]) || pthread_join(t[1], NULL);
	ws_step_set(0);
	if (pthread_create(&t[0], NULL, read_part, &p[0]))
		return 1;
	ws_step_wait(1);
	if (pthread_create(&t[1], NULL, read_part, &p[1]) || pthread_join(t[1], NULL))
		return 1;
	ws_step_set(2);
	return pthread_join(t[0], NULL);
}

/* `parts`: the main thread fills a buffer of two parts; a call on one
 * thread copies the first part, then a call on another thread the
 * second (twice one after the other, twice while the first call still
 * runs).  Each call's input is its own part, not the first the whole. */
static int parts(void)
{
	char *buf = malloc(2 * PART), *out[2] = { malloc(PART), malloc(PART) };
	unsigned long sum = 0;

	for (int round = 0; round < 4; round++) {
		struct part p[2] = { { buf, out[0], round >= 2 }, { buf + PART, out[1], 0 } };

		/* Every byte changes from round to round, and none is 0. */
		for (int i = 0; i < 2 * PART; i++)
			buf[i] = (char)((round * 7 + i) % 100 + 1);
		if (both_parts(p))
			return 1;
		for (int i = 0; i < PART; i++)
			sum += (unsigned char)out[0][i] * 3 + (unsigned char)out[1][i];
	}
	printf("%lu\n", sum);
	return 0;
}

/* `scan N`: ws_scan(p, NULL) like strtol(p, NULL, 10), N times from one
 * call site, p moving through a 64-byte block: each call's input is the
 * block from p on, although its pointer array is NULL. */
static int scan(long n)
{
	char *digits = malloc(64);
	long sum = 0;

	memset(digits, '7', 63);
	digits[63] = 0;
	for (long i = 0; i < n; i++)
		sum += ws_scan(digits + 56 + i % 8, NULL);
	printf("%ld\n", sum);
	return 0;
}

/* Two threads taking turns. */
struct handoff {
	pthread_mutex_t m;
	pthread_cond_t c;
	char *buf;
	int turn;
	long n;
};

static void turn_set(struct handoff *h, int turn)
{
	pthread_mutex_lock(&h->m);
	h->turn = turn;
	pthread_cond_broadcast(&h->c);
	pthread_mutex_unlock(&h->m);
}

static void turn_wait(struct handoff *h, int turn)
{
	pthread_mutex_lock(&h->m);
	while (h->turn != turn)
		pthread_cond_wait(&h->c, &h->m);
	pthread_mutex_unlock(&h->m);
}

/* `handoff N`: a thread allocates a buffer of one of 7 sizes, hands it
 * over (turn 1) and waits, allocating nothing meanwhile, then frees it
 * (turn 2); this one scans each: each call's input is the whole buffer,
 * a block its thread has not logged yet (region_held.c). */
static void *lend(void *arg)
{
	struct handoff *h = arg;

	for (long i = 0; i < h->n; i++) {
		size_t len = 1000 + (size_t)(i % 7) * 100;
		char *p = malloc(len);

		memset(p, 'x', len - 1);
		p[0] = (char)('0' + i % 10);
		p[len - 1] = 0;
		h->buf = p;
		turn_set(h, 1);
		turn_wait(h, 2);
		free(p);
	}
	return NULL;
}

static int handoff(long n)
{
	struct handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, n };
	pthread_t t;
	long sum = 0;

	if (pthread_create(&t, NULL, lend, &h))
		return 1;
	for (long i = 0; i < n; i++) {
		turn_wait(&h, 1);
		sum += ws_scan(h.buf, NULL);
		turn_set(&h, 2);
	}
	pthread_join(t, NULL);
	printf("%ld\n", sum);
	return 0;
}

/* `stale`: a thread allocates 5000 bytes and hands them over without
 * allocating again; this one frees them and allocates 2000 bytes, in the
 * same place as a rule, and another block (its 2000 are logged); then
 * the first thread allocates, logging its 5000 bytes late.  A scan of
 * the 2000 bytes reads 2000, not 5000: the late allocation is dropped. */
static void *hold_one(void *arg)
{
	struct handoff *h = arg;

	h->buf = malloc(5000);
	turn_set(h, 1);
	turn_wait(h, 2);
	char *volatile q = malloc(16);	/* volatile: not optimised away */

	turn_set(h, 3);
	turn_wait(h, 4);
	free(q);
	return NULL;
}

static int stale(void)
{
	struct handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0 };
	pthread_t t;

	mallopt(M_ARENA_MAX, 1);	/* one arena: the place is reused whoever frees it */
	if (pthread_create(&t, NULL, hold_one, &h))
		return 1;
	turn_wait(&h, 1);
	free(h.buf);
	char *r = malloc(2000), *volatile x = malloc(16);

	memset(r, '5', 1999);
	r[1999] = 0;
	turn_set(&h, 2);
	turn_wait(&h, 3);
	printf("%ld\n", ws_scan(r, NULL));
	turn_set(&h, 4);
	pthread_join(t, NULL);
	free(x);
	free(r);
	return 0;
}

/* The end of the writable mapping holding p, from /proc/self/maps; 0
 * when none does. */
static uintptr_t mapping_end(const void *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	uintptr_t start, end, found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 && perms[1] == 'w' &&
		    (uintptr_t)p >= start && (uintptr_t)p < end)
			found = end;
	if (f)
		fclose(f);
	return found;
}

/* `arena`: a pointer into another thread's malloc arena, outside any
 * block: the last 4096 bytes of the arena's writable part, 3 digits.
 * The maps were read (a scan of a string literal, in no area) after the
 * thread was created and before its first malloc made its arena, which
 * glibc maps with calls of its own that no hook sees: the scan's input
 * is those 4096 bytes all the same (the maps read again on the miss). */
static void *scan_arena(void *arg)
{
	struct handoff *h = arg;

	turn_wait(h, 1);
	char *volatile p = malloc(64);	/* the thread's arena is made */
	uintptr_t end = mapping_end(p);
	char *q = (char *)end - 4096;

	h->n = end && q > p + 64 ? (memcpy(q, "123", 4), ws_scan(q, NULL)) : -1;
	free(p);
	return NULL;
}

static int arena(void)
{
	struct handoff h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0 };
	pthread_t t;

	if (pthread_create(&t, NULL, scan_arena, &h))
		return 1;
	long first = ws_scan("45", NULL);

	turn_set(&h, 1);
	pthread_join(t, NULL);
	printf("%ld %ld\n", first, h.n);
	return 0;
}

/* `recycled`: a buffer of 4 LEN bytes, freed with data in it that the
 * library saw, comes back from malloc for a buffer of the same size,
 * twice: once bumped as it was (its bytes are leftovers, not input),
 * once filled by the program first (all input).  The first 32 bytes hold
 * glibc's free-list links, which differ from run to run: not printed. */
static int recycled(void)
{
	char warm[8] = { 0 };
	unsigned long sum = 0;

	ws_bump(warm, sizeof(warm));	/* worksize.full is in use from here on */
	for (int round = 0; round < 3; round++) {
		char *p = malloc(4 * LEN);

		if (round == 0)
			for (int i = 0; i < 4 * LEN; i += LEN)
				fill(p + i, 0, i / LEN);
		if (round == 2)
			for (int i = 0; i < 4 * LEN; i += LEN)
				fill(p + i, 7, 5 + i / LEN);
		ws_bump(p, 4 * LEN);
		for (int i = 32; i < 4 * LEN; i++)
			sum = sum * 31 + (unsigned char)p[i];
		free(p);
	}
	printf("%lu\n", sum);
	return 0;
}

static void *copy_all(void *buf)
{
	static char out[2 * PART];

	ws_copy(buf, out, 2 * PART);
	return NULL;
}

static void fill_parts(char *buf, int seed)
{
	for (int i = 0; i < 2 * PART; i++)
		buf[i] = (char)((seed * 7 + i) % 100 + 1);
}

/* `two`: a thread copies all of b, then this one all of a; one call
 * then reads the second halves of both.  Its two parts come from two
 * earlier calls: one carry record names one of them. */
static int two(void)
{
	char *a = malloc(2 * PART), *b = malloc(2 * PART), *out = malloc(2 * PART);
	pthread_t t;

	fill_parts(a, 1);
	fill_parts(b, 2);
	if (pthread_create(&t, NULL, copy_all, b) || pthread_join(t, NULL))
		return 1;
	copy_all(a);
	ws_copy2(a + PART, b + PART, out, PART);
	printf("%d %d\n", out[5], out[PART + 5]);
	return 0;
}

/* `fork`: after a call in the parent, a child copies all of a buffer,
 * then one of its threads the second half: the carry record names the
 * child's thread, not the parent's. */
static int forked(void)
{
	char *buf = malloc(2 * PART);
	pthread_t t;
	int status;

	fill_parts(buf, 3);
	copy_all(buf);
	pid_t child = fork();

	if (child == 0) {
		fill_parts(buf, 4);
		copy_all(buf);
		if (pthread_create(&t, NULL, read_part, &(struct part){ buf + PART, malloc(PART), 0 }) ||
		    pthread_join(t, NULL))
			_exit(1);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status)
		return 1;
	printf("%d\n", buf[9]);
	return 0;
}

/* The modes without an argument, and those with a count. */
static const struct {
	const char *name;
	int (*run)(void);
} modes[] = { { "two", two }, { "fork", forked }, { "stale", stale }, { "recycled", recycled },
	      { "during", during }, { "parts", parts }, { "arena", arena } };
static const struct {
	const char *name;
	int (*run)(long);
} counted[] = { { "handoff", handoff }, { "scan", scan }, { "shared", shared } };

int main(int argc, char **argv)
{
	for (size_t i = 0; argc == 2 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].run();
	for (size_t i = 0; argc == 3 && i < sizeof(counted) / sizeof(counted[0]); i++)
		if (!strcmp(argv[1], counted[i].name))
			return counted[i].run(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "pages"))
		return pages(argv[2]);
	fprintf(stderr, "usage: ws_threads shared N | during | parts | pages FILE | scan N | two | fork"
		" | handoff N | stale | recycled | arena\n");
	return 2;
}
