/*
 * Folded stacks for flame graphs, as flamegraph.pl and inferno read them:
 * one line per distinct stack, "prog;outer;inner N", N the self time in
 * nanoseconds of the calls with that stack.  The root frame is the
 * program (its executable's base name); frames are function names.
 *
 * Stacks come from the call tree (trace/calltree.c): each thread's calls
 * are gathered with their parents, then walked from the last (a parent
 * always follows the calls it made) so a call's parent has its stack
 * node before the call itself.  Equal stacks share one node of a trie
 * over the whole trace.
 */
#include "trace/internal.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct node {
	size_t parent;			/* SIZE_MAX for a root */
	size_t frame;			/* function index, or process index for a root */
	uint64_t self_ns;
};

struct trie {
	struct node *v;
	size_t n, cap;
	size_t *slot;			/* open addressing: node index + 1, 0 empty */
	size_t nslots;
};

static size_t hash(size_t parent, size_t frame)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull ^ (uint64_t)frame * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29);
}

static void rehash(struct trie *tr)
{
	size_t ns = tr->nslots ? tr->nslots * 2 : 1024;

	free(tr->slot);
	tr->slot = sibyl_xcalloc(ns, sizeof(*tr->slot));
	tr->nslots = ns;
	for (size_t i = 0; i < tr->n; i++) {
		size_t h = hash(tr->v[i].parent, tr->v[i].frame) & (ns - 1);

		while (tr->slot[h])
			h = (h + 1) & (ns - 1);
		tr->slot[h] = i + 1;
	}
}

/* The node for frame under parent, made if new. */
static size_t intern(struct trie *tr, size_t parent, size_t frame)
{
	size_t h;

	if (2 * (tr->n + 1) > tr->nslots)
		rehash(tr);
	h = hash(parent, frame) & (tr->nslots - 1);
	for (; tr->slot[h]; h = (h + 1) & (tr->nslots - 1)) {
		const struct node *x = &tr->v[tr->slot[h] - 1];

		if (x->parent == parent && x->frame == frame)
			return tr->slot[h] - 1;
	}
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? tr->cap * 2 : 256;
		tr->v = sibyl_xreallocarray(tr->v, tr->cap, sizeof(*tr->v));
	}
	tr->v[tr->n] = (struct node){ parent, frame, 0 };
	tr->slot[h] = ++tr->n;
	return tr->n - 1;
}

/* One thread's calls, in file order. */
struct thread_calls {
	size_t *func;
	uint64_t *parent, *self;	/* parent: id, 0 for none */
	uint64_t base;			/* id of the first */
	size_t n, cap;
	size_t process;
};

static void fold_thread(struct trie *tr, struct thread_calls *tc, size_t root_of_process)
{
	size_t *node = sibyl_xcalloc(tc->n ? tc->n : 1, sizeof(*node));

	for (size_t i = tc->n; i-- > 0;) {
		uint64_t p = tc->parent[i];
		size_t up = p && p - tc->base < tc->n ? node[p - tc->base] : root_of_process;

		node[i] = intern(tr, up, tc->func[i]);
		tr->v[node[i]].self_ns += tc->self[i];
	}
	free(node);
	tc->n = 0;
}

static void add_call(struct thread_calls *tc, const struct sibyl_trace_call *c, size_t func)
{
	if (tc->n == tc->cap) {
		tc->cap = tc->cap ? tc->cap * 2 : 1024;
		tc->func = sibyl_xreallocarray(tc->func, tc->cap, sizeof(*tc->func));
		tc->parent = sibyl_xreallocarray(tc->parent, tc->cap, sizeof(*tc->parent));
		tc->self = sibyl_xreallocarray(tc->self, tc->cap, sizeof(*tc->self));
	}
	if (!tc->n)
		tc->base = c->id;
	tc->func[tc->n] = func;
	tc->parent[tc->n] = c->parent;
	tc->self[tc->n++] = c->self_ns;
}

/* A frame as flame graph tools split them: no ';', no line breaks. */
static void put_frame(FILE *out, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == '\n' || *name == '\r' ? ' ' : *name, out);
}

static const char *program(const struct sibyl_trace *t, size_t process)
{
	const char *exe = sibyl_trace_process(t, process)->exe, *slash = strrchr(exe, '/');

	return !*exe ? "?" : slash && slash[1] ? slash + 1 : exe;
}

static void put_stacks(FILE *out, const struct sibyl_trace *t, const struct trie *tr)
{
	size_t *path = NULL, cap = 0;

	for (size_t i = 0; i < tr->n; i++) {
		size_t depth = 0;

		if (!tr->v[i].self_ns || tr->v[i].parent == SIZE_MAX)
			continue;
		for (size_t k = i; k != SIZE_MAX; k = tr->v[k].parent) {
			if (depth == cap) {
				cap = cap ? cap * 2 : 64;
				path = sibyl_xreallocarray(path, cap, sizeof(*path));
			}
			path[depth++] = k;
		}
		put_frame(out, program(t, tr->v[path[depth - 1]].frame));
		for (size_t d = depth - 1; d-- > 0;) {
			fputc(';', out);
			put_frame(out, sibyl_trace_function(t, tr->v[path[d]].frame)->name);
		}
		fprintf(out, " %llu\n", (unsigned long long)tr->v[i].self_ns);
	}
	free(path);
}

/* The root node of a process: one per program name, so that the runs of
 * one program (forks, a shell's children) add up. */
static size_t root_of(struct trie *tr, const struct sibyl_trace *t, size_t process)
{
	size_t first = process;

	for (size_t i = 0; i < process; i++)
		if (!strcmp(program(t, i), program(t, process))) {
			first = i;
			break;
		}
	return intern(tr, SIZE_MAX, first);
}

static void fold_all(const struct sibyl_trace *t, struct trie *tr)
{
	struct sibyl_trace_iter *it = sibyl_trace_iter_new(t);
	const struct sibyl_trace_function *base = sibyl_trace_function(t, 0);
	struct thread_calls tc = { .process = SIZE_MAX };
	struct sibyl_trace_call c;
	struct sibyl_progress line;
	uint64_t done = 0, total = sibyl_trace_call_count(t);
	size_t thread = SIZE_MAX;

	sibyl_trace_iter_parents(it);
	sibyl_progress_start(&line, stderr, "export", "calls");
	while (sibyl_trace_iter_next(it, &c)) {
		if (c.thread != thread) {
			if (tc.n)
				fold_thread(tr, &tc, root_of(tr, t, tc.process));
			thread = c.thread;
			tc.process = sibyl_trace_thread(t, thread)->process;
		}
		add_call(&tc, &c, (size_t)(c.function - base));
		if (++done % EXPORT_PROGRESS_EVERY == 0)
			sibyl_progress_update(&line, (double)done, (double)total, "folded stacks");
	}
	if (tc.n)
		fold_thread(tr, &tc, root_of(tr, t, tc.process));
	sibyl_progress_done(&line);
	sibyl_trace_iter_free(it);
	free(tc.func);
	free(tc.parent);
	free(tc.self);
}

int sibyl_export_folded(const struct sibyl_trace *t, FILE *out, char *err, size_t errlen)
{
	struct trie tr = { 0 };

	fold_all(t, &tr);
	put_stacks(out, t, &tr);
	free(tr.v);
	free(tr.slot);
	if (fflush(out) || ferror(out))
		return sibyl_seterr(err, errlen, "write failed: %s", strerror(errno ? errno : EIO));
	return 0;
}
