/*
 * From source marks to the IR's block counts (source.h).
 *
 * The host analysis IR must be the plain IR with `__sibyl_mark(k)` calls
 * added: same functions, same blocks in the same order, same
 * instructions, same successors.  Then a block holding mark k runs as
 * often as counter k counts, and the rest follows from flow
 * conservation, as in edge profiling: a block runs as often as the sum
 * of its edges in, and of its edges out, so a known block with one
 * unknown edge on a side gives that edge, and a block with all edges of
 * a side known is known.  A helper's entry runs as often as the blocks
 * that call it (OpenCL has no recursion: callers are solved first).
 * Every count is an integer combination of the counters, kept as a
 * dense vector over them; the layout then holds, per counter, the
 * histogram it multiplies (negative coefficients wrap modulo 2^64, which
 * the decoder's unsigned sums undo).
 */
#include "ocl/instrument/cfg.h"
#include "ocl/instrument/instrument_internal.h"
#include "ocl/instrument/source.h"

#include "core/alloc.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

struct solve {
	struct ic_module m, h;		/* plain IR, analysis IR */
	LLVMValueRef *fns;
	int nf;
	size_t nmarks;
	const struct sibyl_source_marks *marks;
	size_t *mark_block;		/* mark k's block (ic_blocks index), or SIZE_MAX */
	size_t *first;			/* function f's first block index */
	int64_t *coef;			/* block i's count: coef[i * nmarks + k] */
	int64_t *entry;			/* function f's entry count, per counter */
	bool barriers;			/* --check's barrier probe: their lines */
	char *err;
	size_t errlen;
};

static bool is_mark(LLVMValueRef i)
{
	LLVMValueRef callee;

	if (LLVMGetInstructionOpcode(i) != LLVMCall)
		return false;
	callee = LLVMGetCalledValue(i);
	return LLVMIsAFunction(callee) && !strcmp(LLVMGetValueName(callee), "__sibyl_mark");
}

static bool same_instruction(LLVMValueRef a, LLVMValueRef b)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(a);

	if (op != LLVMGetInstructionOpcode(b))
		return false;
	if (op == LLVMCall) {
		LLVMValueRef ca = LLVMGetCalledValue(a), cb = LLVMGetCalledValue(b);

		return LLVMIsAFunction(ca) && LLVMIsAFunction(cb) ?
		       !strcmp(LLVMGetValueName(ca), LLVMGetValueName(cb)) :
		       !LLVMIsAFunction(ca) && !LLVMIsAFunction(cb);
	}
	return true;
}

/* Block i leads to the same blocks, by number, in both graphs. */
static bool same_successors(const struct ocl_cfg *a, const struct ocl_cfg *b, size_t i)
{
	size_t ns = ocl_cfg_nsucc(a, i);

	if (ns != ocl_cfg_nsucc(b, i))
		return false;
	for (size_t s = 0; s < ns; s++)
		if (a->succ[a->succ_at[i] + s] != b->succ[b->succ_at[i] + s])
			return false;
	return true;
}

/* Block a (plain) and b (analysis) match but for b's marks, which are
 * recorded as being in block `index`. */
static bool same_block(struct solve *s, LLVMBasicBlockRef a, LLVMBasicBlockRef b, size_t index)
{
	LLVMValueRef i = LLVMGetFirstInstruction(a), j = LLVMGetFirstInstruction(b);

	for (;; i = LLVMGetNextInstruction(i), j = LLVMGetNextInstruction(j)) {
		for (; j && is_mark(j); j = LLVMGetNextInstruction(j)) {
			uint64_t k = LLVMConstIntGetZExtValue(LLVMGetOperand(j, 0));

			if (k >= s->nmarks || s->mark_block[k] != SIZE_MAX)
				return false;
			s->mark_block[k] = index;
		}
		if (!i || !j)
			return !i && !j;
		if (!same_instruction(i, j))
			return false;
	}
}

/* Function f of the plain IR against its namesake in the analysis IR. */
static int compare(struct solve *s, int f)
{
	const char *name = LLVMGetValueName(s->fns[f]);
	LLVMValueRef g = LLVMGetNamedFunction(s->h.mod, name);
	bool same = g && LLVMCountBasicBlocks(g) == LLVMCountBasicBlocks(s->fns[f]);
	struct ocl_cfg a = { 0 }, b = { 0 };

	if (same) {
		ocl_cfg_of_function(&a, s->fns[f]);
		ocl_cfg_of_function(&b, g);
	}
	for (size_t i = 0; same && i < a.n; i++)
		same = same_block(s, a.block[i], b.block[i], s->first[f] + i) &&
		       same_successors(&a, &b, i);
	ocl_cfg_free(&a);
	ocl_cfg_free(&b);
	if (!same)
		return sibyl_seterr(s->err, s->errlen, "kernel: --source-counters: the marked "
				    "source of '%s' compiles to other IR than the source (a mark "
				    "changed its control flow)", name);
	return 0;
}

/* The unknowns of one function: its blocks' and its edges' counts. */
struct flow {
	size_t nb, ne, k;	/* blocks, edges (0: the entry's), counters */
	size_t *src, *dst;	/* edge e: block src (SIZE_MAX: entry) -> dst */
	bool *bknown, *eknown;
	int64_t *b, *e;		/* counts: b[i * k + c], e[j * k + c] */
};

static void vec_set(int64_t *to, const int64_t *from, size_t k, int sign)
{
	for (size_t c = 0; c < k; c++)
		to[c] = sign * from[c];
}

static void vec_add(int64_t *to, const int64_t *from, size_t k, int sign)
{
	for (size_t c = 0; c < k; c++)
		to[c] += sign * from[c];
}

static void add_edge(struct flow *fl, size_t *cap, size_t src, size_t dst)
{
	for (size_t e = 1; e < fl->ne; e++)	/* a switch's cases to one block: one edge */
		if (fl->src[e] == src && fl->dst[e] == dst)
			return;
	if (fl->ne == *cap) {
		*cap *= 2;
		fl->src = sibyl_xreallocarray(fl->src, *cap, sizeof(*fl->src));
		fl->dst = sibyl_xreallocarray(fl->dst, *cap, sizeof(*fl->dst));
	}
	fl->src[fl->ne] = src;
	fl->dst[fl->ne++] = dst;
}

static void flow_init(struct flow *fl, LLVMValueRef f, size_t k)
{
	struct ocl_cfg g;
	size_t cap = 16;

	ocl_cfg_of_function(&g, f);
	*fl = (struct flow){ .nb = g.n, .ne = 1, .k = k };
	fl->src = sibyl_xcalloc(cap, sizeof(*fl->src));
	fl->dst = sibyl_xcalloc(cap, sizeof(*fl->dst));
	fl->src[0] = SIZE_MAX;
	for (size_t i = 0; i < g.n; i++)
		for (size_t e = g.succ_at[i]; e < g.succ_at[i + 1]; e++)
			add_edge(fl, &cap, i, g.succ[e]);
	ocl_cfg_free(&g);
	fl->bknown = sibyl_xcalloc(fl->nb + 1, sizeof(*fl->bknown));
	fl->eknown = sibyl_xcalloc(fl->ne, sizeof(*fl->eknown));
	fl->b = sibyl_xcalloc((fl->nb + 1) * (k + 1), sizeof(*fl->b));
	fl->e = sibyl_xcalloc(fl->ne * (k + 1), sizeof(*fl->e));
}

static void flow_free(struct flow *fl)
{
	free(fl->src);
	free(fl->dst);
	free(fl->bknown);
	free(fl->eknown);
	free(fl->b);
	free(fl->e);
}

/* Block i from one side of its edges (`in`: those entering it), or the
 * side's one unknown edge from block i.  Returns whether it learnt. */
static bool side(struct flow *fl, size_t i, bool in)
{
	size_t unknown = SIZE_MAX, nunknown = 0, nedges = 0;
	int64_t *sum = sibyl_xcalloc(fl->k + 1, sizeof(*sum));
	bool learnt = false;

	for (size_t e = 0; e < fl->ne; e++) {
		if ((in ? fl->dst[e] : fl->src[e]) != i)
			continue;
		nedges++;
		if (fl->eknown[e])
			vec_add(sum, fl->e + e * fl->k, fl->k, 1);
		else
			unknown = e, nunknown++;
	}
	if (!fl->bknown[i] && nedges && !nunknown) {
		vec_set(fl->b + i * fl->k, sum, fl->k, 1);
		fl->bknown[i] = learnt = true;
	} else if (fl->bknown[i] && nunknown == 1) {
		vec_set(fl->e + unknown * fl->k, fl->b + i * fl->k, fl->k, 1);
		vec_add(fl->e + unknown * fl->k, sum, fl->k, -1);
		fl->eknown[unknown] = learnt = true;
	}
	free(sum);
	return learnt;
}

/* Propagate until nothing changes; whether every block is known. A
 * block no edge enters but the entry's runs as often as the entry. */
static bool flow_solve(struct flow *fl)
{
	bool progress = true;

	while (progress) {
		progress = false;
		for (size_t i = 0; i < fl->nb; i++)
			progress |= side(fl, i, true) | side(fl, i, false);
	}
	for (size_t i = 0; i < fl->nb; i++)
		if (!fl->bknown[i])
			return false;
	return true;
}

/* Function f: its blocks' counts into s->coef; its calls add to their
 * callees' entries. */
static int solve_function(struct solve *s, int f)
{
	struct flow fl;
	size_t k = s->nmarks;

	flow_init(&fl, s->fns[f], k);
	if (f) {	/* a helper: entered as often as it is called */
		vec_set(fl.e, s->entry + (size_t)f * k, k, 1);
		fl.eknown[0] = true;
	}
	for (size_t c = 0; c < k; c++) {
		size_t b = s->mark_block[c];

		/* Two marks in one block (an arm whose condition folds, as
		 * `if (1)`, gets no block of its own) count the same runs:
		 * the block takes one of them. */
		if (b != SIZE_MAX && b >= s->first[f] && b < s->first[f] + fl.nb &&
		    !fl.bknown[b - s->first[f]]) {
			fl.b[(b - s->first[f]) * k + c] = 1;
			fl.bknown[b - s->first[f]] = true;
		}
	}
	bool ok = flow_solve(&fl);

	for (size_t i = 0; ok && i < fl.nb; i++)
		vec_set(s->coef + (s->first[f] + i) * k, fl.b + i * k, k, 1);
	flow_free(&fl);
	if (!ok)
		return sibyl_seterr(s->err, s->errlen, "kernel: --source-counters: the counts of "
				    "'%s' do not follow from its source regions",
				    LLVMGetValueName(s->fns[f]));
	return 0;
}

static int fn_index(const struct solve *s, LLVMValueRef f)
{
	for (int i = 0; i < s->nf; i++)
		if (s->fns[i] == f)
			return i;
	return -1;
}

/* Each call in function f's blocks enters its callee once more. */
static void add_calls(struct solve *s, int f)
{
	size_t i = s->first[f], k = s->nmarks;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(s->fns[f]); b;
	     b = LLVMGetNextBasicBlock(b), i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
			int g = LLVMGetInstructionOpcode(in) == LLVMCall ?
				fn_index(s, LLVMGetCalledValue(in)) : -1;

			if (g > 0)
				vec_add(s->entry + (size_t)g * k, s->coef + i * k, k, 1);
		}
}

/* Whether a function not yet solved calls f. */
static bool called_by_pending(const struct solve *s, const bool *done, int f)
{
	for (int g = 0; g < s->nf; g++) {
		if (done[g])
			continue;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(s->fns[g]); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				if (LLVMGetInstructionOpcode(i) == LLVMCall &&
				    LLVMGetCalledValue(i) == s->fns[f])
					return true;
	}
	return false;
}

/* Callers before callees, the kernel first. */
static int solve_all(struct solve *s)
{
	bool *done = sibyl_xcalloc((size_t)s->nf, sizeof(*done));
	int left = s->nf, r = 0;

	while (left && !r) {
		int f = 0;

		while (f < s->nf && (done[f] || called_by_pending(s, done, f)))
			f++;
		if (f == s->nf) {
			r = sibyl_seterr(s->err, s->errlen, "kernel: --source-counters: recursive calls");
			break;
		}
		r = solve_function(s, f);
		if (!r)
			add_calls(s, f);
		done[f] = true;
		left--;
	}
	free(done);
	return r;
}

/* Only the marks of the functions the kernel reaches get a counter of
 * the row: each work-item zeroes and stores its row, and a file's other
 * kernels made it several times longer. Counter c's histogram: every
 * block's, times c's coefficient there. */
static void fill_layout(const struct solve *s, const struct ic_blocks *blocks,
			struct ic_layout *layout)
{
	size_t k = s->nmarks, *slot = sibyl_xcalloc(k + 1, sizeof(*slot)), n = 0;

	for (size_t c = 0; c < k; c++)
		slot[c] = s->mark_block[c] != SIZE_MAX ? n++ : SIZE_MAX;
	layout->ncounters = n;
	layout->mark_counter = slot;
	layout->nmarks = k;
	layout->counter_hist = sibyl_xcalloc(n + 1, sizeof(*layout->counter_hist));
	for (size_t i = 0; i < blocks->n; i++)
		for (size_t c = 0; c < k; c++) {
			int64_t x = s->coef[i * k + c];

			for (size_t h = 0; x && h < blocks->hist[i].n; h++)
				ic_hist_add(&layout->counter_hist[slot[c]], blocks->hist[i].slot[h],
					    (uint64_t)x * blocks->hist[i].add[h]);
		}
}

/* --check's barrier probe: each counter's barrier line, that of the
 * first barrier whose block's count the counter adds to (barriers.c
 * reads a row's differing counter through it). */
static void barrier_lines(const struct solve *s, const struct ic_blocks *blocks,
			  struct ic_layout *layout)
{
	size_t k = s->nmarks;

	layout->barrier_line = sibyl_xcalloc(layout->ncounters + 1, sizeof(unsigned));
	for (size_t i = 0; i < blocks->n; i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(blocks->block[i]); in;
		     in = LLVMGetNextInstruction(in)) {
			unsigned line = ic_barrier_call_line(in);

			for (size_t c = 0; line && c < k; c++) {
				size_t slot = layout->mark_counter[c];

				if (s->coef[i * k + c] && slot != SIZE_MAX &&
				    !layout->barrier_line[slot])
					layout->barrier_line[slot] = line;
			}
		}
}

/* A function the kernel reaches that could not be marked. */
static int refused(const struct solve *s)
{
	for (int f = 0; f < s->nf; f++)
		for (size_t i = 0; i < s->marks->refused_fns.count; i++)
			if (!strcmp(s->marks->refused_fns.items[i], LLVMGetValueName(s->fns[f])))
				return sibyl_seterr(s->err, s->errlen, "%s",
						    s->marks->refused_why.items[i]);
	return 0;
}

static int analyse(struct solve *s, struct ic_layout *layout)
{
	struct ic_blocks blocks = { 0 };
	int r = 0;

	ic_analyze(s->fns, s->nf, layout, &blocks);
	s->first = sibyl_xcalloc((size_t)s->nf + 1, sizeof(*s->first));
	for (int f = 1; f < s->nf; f++)
		s->first[f] = s->first[f - 1] + LLVMCountBasicBlocks(s->fns[f - 1]);
	s->mark_block = sibyl_xmalloc((s->nmarks + 1) * sizeof(*s->mark_block));
	for (size_t k = 0; k <= s->nmarks; k++)
		s->mark_block[k] = SIZE_MAX;
	for (int f = 0; f < s->nf && !r; f++)
		r = compare(s, f);
	s->coef = sibyl_xcalloc((blocks.n + 1) * (s->nmarks + 1), sizeof(*s->coef));
	s->entry = sibyl_xcalloc(((size_t)s->nf + 1) * (s->nmarks + 1), sizeof(*s->entry));
	if (!r && !(r = solve_all(s)))
		fill_layout(s, &blocks, layout);
	if (!r && s->barriers)
		barrier_lines(s, &blocks, layout);
	ic_blocks_free(&blocks);
	free(s->first);
	free(s->mark_block);
	free(s->coef);
	free(s->entry);
	return r;
}

int sibyl_instrument_source(const void *bc, size_t size, const void *host_bc, size_t host_size,
			    const char *kernel, const struct sibyl_source_marks *marks,
			    const struct sibyl_instrument_options *opt,
			    struct sibyl_instrumented *out, char *err, size_t errlen)
{
	struct solve s = { .nmarks = marks->nmarks, .marks = marks, .err = err, .errlen = errlen,
			   .barriers = opt && opt->strip_barriers };
	struct ic_layout *layout = sibyl_xcalloc(1, sizeof(*layout));
	int r = -1;

	*out = (struct sibyl_instrumented){ 0 };
	if (ic_module_open(&s.m, bc, size, kernel, err, errlen))
		goto out;
	if (ic_module_open(&s.h, host_bc, host_size, kernel, err, errlen) == 0) {
		out->counter_arg = LLVMCountParams(s.m.kernel);
		s.nf = ic_reachable(&s.m, &s.fns);
		r = s.nf < 0 || refused(&s) ? -1 : analyse(&s, layout);
		ic_module_close(&s.h);
	}
	ic_module_close(&s.m);
out:
	free(s.fns);
	if (r) {
		ic_layout_free(layout);
		free(layout);
		return -1;
	}
	layout->per_item = (opt && opt->per_item_rows) ||
		(opt && opt->rows_max_bytes && opt->max_items && layout->ncounters &&
		 opt->max_items <= opt->rows_max_bytes / (layout->ncounters * sizeof(uint64_t)));
	layout->strip_barriers = s.barriers;
	out->layout = layout;
	return 0;
}

bool sibyl_instrumented_strips_barriers(const struct sibyl_instrumented *in)
{
	return ((const struct ic_layout *)in->layout)->strip_barriers;
}

bool sibyl_instrumented_per_item(const struct sibyl_instrumented *in)
{
	return ((const struct ic_layout *)in->layout)->per_item;
}

size_t sibyl_source_counter(const struct sibyl_instrumented *in, size_t mark)
{
	const struct ic_layout *l = in->layout;

	return mark < l->nmarks ? l->mark_counter[mark] : SIZE_MAX;
}
