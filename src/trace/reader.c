/*
 * sibyl_trace_open: scan a trace directory, validate every file, and keep
 * the events files mapped for iteration.  Validation happens here, once,
 * so a report never stops half-way through with a format error.
 */
#define _GNU_SOURCE
#include "trace/internal.h"
#include "core/log.h"
#include "core/alloc.h"
#include "core/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Error about one file of the trace: "<dir>/<name>: <why>". */
static int file_err(char *err, size_t errlen, const char *dir, const char *name,
		    const char *why)
{
	return sibyl_seterr(err, errlen, "%s/%s: %s", dir, name, why);
}

/* Room for one more item in *v (n items of size bytes, capacity *cap):
 * doubling keeps a trace of many files linear to open. */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 16;
	return sibyl_xreallocarray(v, *cap, size);
}

/* Strict unsigned decimal: digits only, no sign, fits 32 bits. */
static int parse_u32(const char **s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
			return -1;
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

/* "<pid>.<gen>.proc" -> 'p', "<pid>.<gen>-<tid>.events" -> 'e', else 0. */
static int classify(const char *name, uint32_t *pid, uint32_t *gen, uint32_t *tid)
{
	const char *p = name;

	if (parse_u32(&p, pid) || *p++ != '.' || parse_u32(&p, gen))
		return 0;
	if (!strcmp(p, ".proc"))
		return 'p';
	if (*p++ != '-' || parse_u32(&p, tid))
		return 0;
	return strcmp(p, ".events") ? 0 : 'e';
}

/* Read an optional file of at most max bytes; 1 read, 0 absent, -1 error
 * (message set). */
static int read_optional(const char *dir, const char *name, size_t max, char **text,
			 size_t *len, char *err, size_t errlen)
{
	char *path = sibyl_path_join(dir, name), why[128];

	*text = sibyl_read_file(path, max, len, why, sizeof(why));
	free(path);
	if (*text)
		return 1;
	if (errno == ENOENT)
		return 0;
	return file_err(err, errlen, dir, name, why);
}

static int load_meta(struct sibyl_trace *t, const char *dir, char *err, size_t errlen)
{
	char *text, why[256];
	size_t len;
	int r = read_optional(dir, "meta.json", TRACE_META_MAX, &text, &len, err, errlen);

	if (r <= 0) {
		meta_default(&t->meta);
		return r;
	}
	r = meta_parse(text, len, &t->meta, why, sizeof(why));
	free(text);
	return r ? file_err(err, errlen, dir, "meta.json", why) : 0;
}

static int load_table(struct sibyl_trace *t, const char *dir, const char *name,
		      int (*parse)(struct function_table *, const char *, size_t, char *, size_t),
		      char *err, size_t errlen)
{
	char *text, why[512];
	size_t len;
	int r = read_optional(dir, name, TRACE_TABLE_MAX, &text, &len, err, errlen);

	if (r <= 0)
		return r;
	r = parse(&t->functions, text, len, why, sizeof(why));
	free(text);
	return r ? file_err(err, errlen, dir, name, why) : 0;
}

/* Names first: work_metrics.tsv describes functions already named. */
static int load_functions(struct sibyl_trace *t, const char *dir, char *err, size_t errlen)
{
	if (load_table(t, dir, "functions.tsv", functions_parse, err, errlen) < 0)
		return -1;
	return load_table(t, dir, "work_metrics.tsv", functions_parse_metrics, err, errlen);
}

static int load_proc(struct sibyl_trace *t, const char *dir, const char *name, uint32_t pid,
		     uint32_t gen, char *err, size_t errlen)
{
	char *path = sibyl_path_join(dir, name), why[256];
	size_t len;
	char *buf = sibyl_read_file(path, TRACE_PROC_MAX, &len, why, sizeof(why));
	struct proc_file p;
	int r;

	free(path);
	if (!buf)
		return file_err(err, errlen, dir, name, why);
	r = proc_parse(buf, len, &p, why, sizeof(why));
	free(buf);
	if (!r && (p.info.pid != pid || p.info.gen != gen)) {
		snprintf(why, sizeof(why), "header says pid %u gen %u", p.info.pid, p.info.gen);
		free((char *)p.info.exe);
		r = -1;
	}
	if (r)
		return file_err(err, errlen, dir, name, why);
	t->procs = grow(t->procs, t->nprocs, &t->procs_cap, sizeof(*t->procs));
	t->procs[t->nprocs++] = p;
	return 0;
}

/* Count the records of a checked header (info, th->records) and note
 * every function id used. */
static int scan_events(struct sibyl_trace *t, struct trace_thread_file *th,
		       struct sibyl_events_info info, char *why, size_t whylen)
{
	struct events_cursor cur = th->records;
	struct sibyl_call_record call;
	struct events_attached att;

	if (info.pid != th->info.pid || info.gen != th->info.gen || info.tid != th->info.tid)
		return sibyl_seterr(why, whylen, "header says pid %u gen %u tid %u", info.pid,
				    info.gen, info.tid);
	/* th->records keeps exactly what was validated, for iterating
	 * later even if a live runtime commits more records meanwhile. */
	while (events_next(&cur, &call, &att, &info)) {
		if (info.calls == 1 || call.start_tsc < th->first_tsc)
			th->first_tsc = call.start_tsc;
		if (call.end_tsc > th->last_tsc)
			th->last_tsc = call.end_tsc;
		if (!functions_find(&t->functions, call.func))
			functions_add_unknown(&t->functions, call.func);
	}
	/* Carry records about other threads' calls, for every file's reader. */
	for (uint64_t i = 0; cur.version >= 6 && i < th->records.n; i++) {
		struct sibyl_ws_carry_record c;

		memcpy(&c, th->records.rec + i * SIBYL_RECORD_SIZE, sizeof(c));
		if (c.kind != SIBYL_REC_WS_CARRY || !(c.flags & SIBYL_CARRY_OTHER_THREAD))
			continue;
		t->foreign = grow(t->foreign, t->nforeign, &t->foreign_cap, sizeof(*t->foreign));
		t->foreign[t->nforeign++] = (struct foreign_carry){ c.tid, c.func, c.start_tsc, c.bytes };
	}
	th->info.records = info.committed;
	th->info.calls = info.calls;
	th->info.dropped = info.dropped;
	th->info.torn = info.torn;
	th->info.skipped = info.skipped;
	t->ncalls += info.calls;
	return 0;
}

/* Map a whole .events file (a regular file only: never a FIFO or a
 * device); the fd stays open for committed_written().  -1, why set. */
static int map_file(const char *path, const unsigned char **map, size_t *len, char *why,
		    size_t whylen)
{
	struct stat st;
	int fd = sibyl_open_regular(path, SIZE_MAX, &st, why, whylen);

	if (fd < 0)
		return -1;
	*len = (size_t)st.st_size;
	*map = NULL;
	if (*len) {
		void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			snprintf(why, whylen, "%s", strerror(errno));
			close(fd);
			return -1;
		}
		*map = m;
	}
	return fd;
}

/* The runtime stores every record it commits into pages it provisioned,
 * so the committed records hold no hole, except perhaps for the last one
 * (reserved, then torn by a crash).  A sparse file claiming more would
 * have the reader walk terabytes of zeros: refuse it. */
static int committed_written(int fd, const struct trace_thread_file *th, char *why,
			     size_t whylen)
{
	uint64_t n = th->records.n;
	uint64_t need = (uint64_t)(th->records.rec - th->map) + (n - 1) * SIBYL_RECORD_SIZE;
	off_t hole;

	if (n < 2)
		return 0;
	hole = lseek(fd, 0, SEEK_HOLE);
	if (hole < 0 || (uint64_t)hole >= need)
		return 0;	/* no hole there, or no SEEK_HOLE on this file system */
	return sibyl_seterr(why, whylen,
			    "%llu records committed, but the file has a hole from byte %lld "
			    "on: records never written (a sparse file)",
			    (unsigned long long)n, (long long)hole);
}

static int load_events(struct sibyl_trace *t, const char *dir, const char *name,
		       uint32_t pid, uint32_t gen, uint32_t tid, char *err, size_t errlen)
{
	char *path = sibyl_path_join(dir, name), why[256];
	struct trace_thread_file *th;
	struct sibyl_events_info info;
	int fd, r;

	t->threads = grow(t->threads, t->nthreads, &t->threads_cap, sizeof(*t->threads));
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->info.pid = pid;
	th->info.gen = gen;
	th->info.tid = tid;
	fd = map_file(path, &th->map, &th->maplen, why, sizeof(why));
	free(path);
	if (fd < 0)
		return file_err(err, errlen, dir, name, why);
	r = events_header_check(th->map, th->maplen, &info, &th->records, why, sizeof(why)) ||
	    committed_written(fd, th, why, sizeof(why)) ||
	    scan_events(t, th, info, why, sizeof(why));
	close(fd);
	return r ? file_err(err, errlen, dir, name, why) : 0;
}

/*
 * A writer killed between creating a file and writing its header (the
 * program in direct mode, `sibyl trace`'s drainer, a process image
 * starting) leaves it empty.  It holds no record, so nothing is lost by
 * passing over it, and refusing the whole trace for it would lose
 * everything else.
 */
static bool empty_file(DIR *d, const char *name)
{
	struct stat st;

	return fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == 0;
}

static int scan_dir(struct sibyl_trace *t, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return sibyl_seterr(err, errlen, "%s: %s", dir, strerror(errno));
	while (!r && (e = readdir(d))) {
		uint32_t pid, gen, tid;
		int kind = classify(e->d_name, &pid, &gen, &tid);

		if (kind && empty_file(d, e->d_name))
			continue;
		switch (kind) {
		case 'p':
			r = load_proc(t, dir, e->d_name, pid, gen, err, errlen);
			break;
		case 'e':
			r = load_events(t, dir, e->d_name, pid, gen, tid, err, errlen);
			break;
		}
	}
	closedir(d);
	return r;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc_file *x = a, *y = b;

	if (x->info.pid != y->info.pid)
		return x->info.pid < y->info.pid ? -1 : 1;
	return x->info.gen < y->info.gen ? -1 : x->info.gen > y->info.gen;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct trace_thread_file *x = a, *y = b;

	if (x->info.pid != y->info.pid)
		return x->info.pid < y->info.pid ? -1 : 1;
	if (x->info.gen != y->info.gen)
		return x->info.gen < y->info.gen ? -1 : 1;
	return x->info.tid < y->info.tid ? -1 : x->info.tid > y->info.tid;
}

/* The process (pid, gen) among the n first of t->procs, sorted. */
static struct proc_file *find_proc(const struct sibyl_trace *t, size_t n, uint32_t pid,
				   uint32_t gen)
{
	struct proc_file key = { .info = { .pid = pid, .gen = gen } };

	return n ? bsearch(&key, t->procs, n, sizeof(key), cmp_proc) : NULL;
}

/* Every thread gets a process; one without a .proc file gets a stub.  The
 * stubs are added first and the processes sorted once, so that linking
 * stays O(n log n) however many .proc files are missing. */
static void link_threads(struct sibyl_trace *t)
{
	size_t known = t->nprocs;

	for (size_t i = 0; i < t->nthreads; i++) {
		const struct sibyl_trace_thread *th = &t->threads[i].info;
		const struct sibyl_trace_thread *prev = i ? &t->threads[i - 1].info : NULL;

		/* threads are sorted: a process's threads are adjacent */
		if (prev && prev->pid == th->pid && prev->gen == th->gen)
			continue;
		if (find_proc(t, known, th->pid, th->gen))
			continue;
		t->procs = grow(t->procs, t->nprocs, &t->procs_cap, sizeof(*t->procs));
		t->procs[t->nprocs++] = (struct proc_file){
			.info = { .pid = th->pid, .gen = th->gen, .exe = sibyl_xstrdup("") } };
	}
	if (t->nprocs > known)
		qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sibyl_trace_thread *th = &t->threads[i].info;

		th->process = (size_t)(find_proc(t, t->nprocs, th->pid, th->gen) - t->procs);
	}
}

struct sibyl_trace *sibyl_trace_open(const char *dir, char *err, size_t errlen)
{
	struct sibyl_trace *t = sibyl_xcalloc(1, sizeof(*t));
	struct stat st;

	if (stat(dir, &st) < 0) {
		sibyl_seterr(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		sibyl_seterr(err, errlen, "%s: not a directory", dir);
		goto fail;
	}
	if (load_meta(t, dir, err, errlen) || load_functions(t, dir, err, errlen) ||
	    scan_dir(t, dir, err, errlen))
		goto fail;
	if (!t->meta.meta.present && !t->nprocs && !t->nthreads) {
		sibyl_seterr(err, errlen, "%s: not a trace: no meta.json, .proc or .events files",
			     dir);
		goto fail;
	}
	if (t->nprocs)
		qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
	if (t->nthreads)
		qsort(t->threads, t->nthreads, sizeof(*t->threads), cmp_thread);
	if (t->nforeign)
		qsort(t->foreign, t->nforeign, sizeof(*t->foreign), foreign_carry_cmp);
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].records.tid = t->threads[i].info.tid;
		t->threads[i].records.foreign = t->foreign;
		t->threads[i].records.nforeign = t->nforeign;
	}
	link_threads(t);
	proc_ends(t->procs, t->nprocs, &t->meta.meta);
	if (timebase_clock(t, dir, err, errlen))
		goto fail;
	timebase_spans(t);
	return t;
fail:
	sibyl_trace_close(t);
	return NULL;
}

void sibyl_trace_close(struct sibyl_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].map)
			munmap((void *)t->threads[i].map, t->threads[i].maplen);
	for (size_t i = 0; i < t->nprocs; i++)
		free((char *)t->procs[i].info.exe);
	free(t->threads);
	free(t->procs);
	free(t->foreign);
	functions_free(&t->functions);
	meta_free(&t->meta);
	free(t);
}
