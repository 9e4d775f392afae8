/* The guards that hold at an access and the loops it runs in, for the
 * intervals of arg_extent.c.  LLVM-C has no dominator tree: clang lays
 * a function's blocks out in source order, so a block's one earlier
 * predecessor (its only one, or a loop header's entry beside its later
 * latches) is taken for its dominator, and a predecessor laid out at or
 * after a phi's block brings a loop's next value. */
#include "ocl/driver/arg_extent_internal.h"

#include <stdint.h>

/* Block b's place in the layout (SIZE_MAX: not the kernel's). */
static size_t place(const struct ext *e, LLVMBasicBlockRef b)
{
	return ocl_cfg_index(&e->blocks, b);
}

/* b's dominator as the header comment says, or NULL. */
static LLVMBasicBlockRef entry_pred(const struct ext *e, LLVMBasicBlockRef b)
{
	const struct ocl_cfg *g = &e->blocks;
	size_t at = place(e, b), earlier = SIZE_MAX, before = 0;

	if (at == SIZE_MAX)
		return NULL;
	for (size_t k = g->pred_at[at]; k < g->pred_at[at + 1]; k++)
		if (g->pred[k] < at && g->pred[k] != earlier) {
			before++;
			earlier = g->pred[k];
		}
	if (ocl_cfg_npred(g, at) == 1 && earlier == SIZE_MAX)	/* one, laid out later */
		return g->block[g->pred[g->pred_at[at]]];
	return before == 1 ? g->block[earlier] : NULL;
}

static LLVMIntPredicate inverse(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntEQ: return LLVMIntNE;
	case LLVMIntNE: return LLVMIntEQ;
	case LLVMIntSLT: return LLVMIntSGE;
	case LLVMIntSGE: return LLVMIntSLT;
	case LLVMIntSLE: return LLVMIntSGT;
	case LLVMIntSGT: return LLVMIntSLE;
	case LLVMIntULT: return LLVMIntUGE;
	case LLVMIntUGE: return LLVMIntULT;
	case LLVMIntULE: return LLVMIntUGT;
	default: return LLVMIntULE;
	}
}

/* `a p b` as `b q a`. */
static LLVMIntPredicate swapped(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntSLT: return LLVMIntSGT;
	case LLVMIntSGT: return LLVMIntSLT;
	case LLVMIntSLE: return LLVMIntSGE;
	case LLVMIntSGE: return LLVMIntSLE;
	case LLVMIntULT: return LLVMIntUGT;
	case LLVMIntUGT: return LLVMIntULT;
	case LLVMIntULE: return LLVMIntUGE;
	case LLVMIntUGE: return LLVMIntULE;
	default: return p;
	}
}

static LLVMValueRef uncast(LLVMValueRef v)
{
	while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v) || LLVMIsATruncInst(v))
		v = LLVMGetOperand(v, 0);
	return v;
}

/* The comparison that sends p's branch to s, as `x pred b`; false
 * when p does not branch on a comparison. */
static bool branch_to(LLVMBasicBlockRef p, LLVMBasicBlockRef s, struct guard *g)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(p), c;

	if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t))
		return false;
	c = LLVMGetCondition(t);
	if (!LLVMIsAICmpInst(c) || LLVMGetSuccessor(t, 0) == LLVMGetSuccessor(t, 1))
		return false;
	g->x = LLVMGetOperand(c, 0);
	g->b = LLVMGetOperand(c, 1);
	g->p = LLVMGetICmpPredicate(c);
	if (LLVMGetSuccessor(t, 1) == s)
		g->p = inverse(g->p);
	return LLVMGetSuccessor(t, 0) == s || LLVMGetSuccessor(t, 1) == s;
}

void ext_guards(struct ext *e, LLVMBasicBlockRef b)
{
	e->nguards = 0;
	for (int up = 0; up < EXT_UP && e->nguards < EXT_GUARDS; up++) {
		LLVMBasicBlockRef p = entry_pred(e, b);

		if (!p)
			break;
		if (branch_to(p, b, &e->guard[e->nguards]))
			e->nguards++;
		b = p;
	}
}

struct iv ext_guarded(struct ext *e, LLVMValueRef v, struct iv r)
{
	/* A point (a decided scalar) narrows no further.  Narrowing it would
	 * evaluate the guard's other side while v is still open: in
	 * `for (c = 0; c < n; c++) a[r * n + c]` the stride n is met first,
	 * and c, bounded by n, would be cut unbounded there and kept so. */
	if (!iv_empty(r) && r.lo == r.hi)
		return r;
	for (unsigned i = 0; i < e->nguards; i++) {
		const struct guard *g = &e->guard[i];

		if (uncast(g->x) == v)
			r = iv_narrow(r, g->p, ext_eval(e, g->b));
		else if (uncast(g->b) == v)
			r = iv_narrow(r, swapped(g->p), ext_eval(e, g->x));
	}
	return r;
}

/* What u adds to phi per trip: u = phi + s, phi - s, or a join of
 * such (a conditional step); IV_ANY for anything else. */
static struct iv step_of(struct ext *e, LLVMValueRef u, LLVMValueRef phi, int depth)
{
	LLVMOpcode op = LLVMIsAInstruction(u) ? LLVMGetInstructionOpcode(u) : 0;
	struct iv s = IV_EMPTY;

	if (u == phi)
		return iv_point(0);
	if (depth > 8)
		return IV_ANY;
	if (op == LLVMSExt || op == LLVMZExt || op == LLVMTrunc)
		return step_of(e, LLVMGetOperand(u, 0), phi, depth + 1);
	if (op == LLVMAdd && (LLVMGetOperand(u, 0) == phi || LLVMGetOperand(u, 1) == phi))
		return ext_eval(e, LLVMGetOperand(u, LLVMGetOperand(u, 0) == phi));
	if (op == LLVMSub && LLVMGetOperand(u, 0) == phi)
		return iv_neg(ext_eval(e, LLVMGetOperand(u, 1)));
	if (op == LLVMSelect)
		return iv_join(step_of(e, LLVMGetOperand(u, 1), phi, depth + 1),
			       step_of(e, LLVMGetOperand(u, 2), phi, depth + 1));
	if (op != LLVMPHI)
		return IV_ANY;
	for (unsigned i = 0, n = LLVMCountIncoming(u); i < n; i++)
		s = iv_join(s, step_of(e, LLVMGetIncomingValue(u, i), phi, depth + 1));
	return s;
}

/* phi's first value (from the blocks laid out before its own) into
 * *init, what each trip adds into *step; false when it is no loop's. */
static bool parts(struct ext *e, LLVMValueRef phi, struct iv *init, struct iv *step)
{
	size_t at = place(e, LLVMGetInstructionParent(phi));
	bool loop = false;

	*init = *step = IV_EMPTY;
	for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++) {
		LLVMValueRef v = LLVMGetIncomingValue(phi, i);

		if (place(e, LLVMGetIncomingBlock(phi, i)) >= at) {
			loop = true;
			*step = iv_join(*step, step_of(e, v, phi, 0));
		} else {
			*init = iv_join(*init, ext_eval(e, v));
		}
	}
	return loop;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a <= 0 ? 0 : (a + b - 1) / b;
}

/* How many trips a variable from init by step makes while `x p b`
 * holds, b within bounds b; -1 when that is not bounded. */
static int64_t trips_while(struct iv init, struct iv step, LLVMIntPredicate p, struct iv b)
{
	struct ext_order o = ext_order(p);
	int64_t span, s;

	if (iv_empty(init) || iv_empty(b) || iv_empty(step))
		return -1;
	if (p == LLVMIntNE && step.lo == step.hi && (step.lo == 1 || step.lo == -1))
		o = (struct ext_order){ (int)-step.lo, false, false };	/* i != n, i++: i < n */
	if (o.dir < 0 && step.lo > 0) {
		span = iv_plus(b.hi, -init.lo);
		s = step.lo;
	} else if (o.dir > 0 && step.hi < 0) {
		span = iv_plus(init.hi, -b.lo);
		s = -step.hi;
	} else {
		return -1;
	}
	if (span >= EXT_INF)
		return -1;
	return o.incl ? (span < 0 ? 0 : span / s + 1) : ceil_div(span, s);
}

/* The most trips of the loop headed by block h: its branch stays on a
 * comparison of one of h's phis (the successor laid out first is the
 * body); -1 when not known. */
static int64_t trips(struct ext *e, LLVMBasicBlockRef h)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(h), c, x, b;
	struct iv init, step;
	LLVMIntPredicate p;

	if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t) ||
	    !LLVMIsAICmpInst(c = LLVMGetCondition(t)))
		return -1;
	p = LLVMGetICmpPredicate(c);
	if (place(e, LLVMGetSuccessor(t, 1)) < place(e, LLVMGetSuccessor(t, 0)))
		p = inverse(p);
	x = uncast(LLVMGetOperand(c, 0));
	b = LLVMGetOperand(c, 1);
	if (!LLVMIsAPHINode(x) || LLVMGetInstructionParent(x) != h) {
		x = uncast(b);
		b = LLVMGetOperand(c, 0);
		p = swapped(p);
	}
	if (!LLVMIsAPHINode(x) || LLVMGetInstructionParent(x) != h || !parts(e, x, &init, &step))
		return -1;
	return trips_while(init, step, p, ext_eval(e, b));
}

struct iv ext_phi(struct ext *e, LLVMValueRef phi)
{
	struct iv init, step;
	int64_t n;

	if (!parts(e, phi, &init, &step) || iv_empty(step))
		return init;
	if (iv_empty(init) || (step.lo < 0 && step.hi > 0))
		return IV_ANY;
	n = trips(e, LLVMGetInstructionParent(phi));
	if (step.lo >= 0)
		return (struct iv){ init.lo, n < 0 ? EXT_INF : iv_add(init, iv_mul(step, iv_point(n))).hi };
	return (struct iv){ n < 0 ? -EXT_INF : iv_add(init, iv_mul(step, iv_point(n))).lo, init.hi };
}
