/* How far a kernel's buffer accesses reach (arg_extent.h): intervals. */
#include "ocl/driver/arg_extent.h"
#include "ocl/driver/arg_extent_internal.h"
#include "ocl/instrument/instrument_internal.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

static int64_t clamp(__int128 x)
{
	return x > EXT_INF ? EXT_INF : x < -EXT_INF ? -EXT_INF : (int64_t)x;
}

static bool infinite(int64_t x)
{
	return x >= EXT_INF || x <= -EXT_INF;
}

/* a + b; an infinite bound stays infinite. */
static int64_t plus(int64_t a, int64_t b)
{
	return infinite(a) ? a : infinite(b) ? b : clamp((__int128)a + b);
}

int64_t iv_plus(int64_t a, int64_t b)
{
	return plus(a, b);
}

struct iv iv_point(int64_t c)
{
	return (struct iv){ c, c };
}

bool iv_empty(struct iv a)
{
	return a.lo > a.hi;
}

struct iv iv_join(struct iv a, struct iv b)
{
	if (iv_empty(a) || iv_empty(b))
		return iv_empty(a) ? b : a;
	return (struct iv){ a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi };
}

struct iv iv_add(struct iv a, struct iv b)
{
	if (iv_empty(a) || iv_empty(b))
		return IV_EMPTY;
	return (struct iv){ plus(a.lo, b.lo), plus(a.hi, b.hi) };
}

struct iv iv_neg(struct iv a)
{
	return iv_empty(a) ? a : (struct iv){ -a.hi, -a.lo };
}

struct iv iv_mul(struct iv a, struct iv b)
{
	__int128 c[4] = { (__int128)a.lo * b.lo, (__int128)a.lo * b.hi, (__int128)a.hi * b.lo,
			  (__int128)a.hi * b.hi };
	struct iv r = { EXT_INF, -EXT_INF };

	if (iv_empty(a) || iv_empty(b))
		return IV_EMPTY;
	for (int i = 0; i < 4; i++) {
		int64_t x = clamp(c[i]);

		r.lo = x < r.lo ? x : r.lo;
		r.hi = x > r.hi ? x : r.hi;
	}
	return r;
}

/* a / c, a >> s: c > 0 a constant. */
static struct iv iv_div(struct iv a, int64_t c)
{
	if (iv_empty(a))
		return a;
	return (struct iv){ infinite(a.lo) ? a.lo : a.lo / c, infinite(a.hi) ? a.hi : a.hi / c };
}

/* a % b, a & b: within b's magnitude. */
static struct iv iv_rem(struct iv a, struct iv b)
{
	if (iv_empty(a) || iv_empty(b) || b.lo <= 0)
		return IV_ANY;
	if (a.lo >= 0)
		return (struct iv){ 0, a.hi < b.hi - 1 ? a.hi : b.hi - 1 };
	return (struct iv){ 1 - b.hi, b.hi - 1 };
}

static struct iv iv_and(struct iv a, struct iv b)
{
	if (iv_empty(a) || iv_empty(b))
		return IV_EMPTY;
	if (a.lo >= 0 && b.lo >= 0)
		return (struct iv){ 0, a.hi < b.hi ? a.hi : b.hi };
	if (a.lo >= 0 || b.lo >= 0)
		return (struct iv){ 0, a.lo >= 0 ? a.hi : b.hi };
	return IV_ANY;
}

/* a | b, a ^ b of non-negative values: below the next power of 2. */
static struct iv iv_or(struct iv a, struct iv b)
{
	int64_t m = a.hi > b.hi ? a.hi : b.hi, p = 1;

	if (iv_empty(a) || iv_empty(b) || a.lo < 0 || b.lo < 0 || infinite(m))
		return iv_empty(a) || iv_empty(b) ? IV_EMPTY : IV_ANY;
	while (p <= m)
		p <<= 1;
	return (struct iv){ 0, p - 1 };
}

struct ext_order ext_order(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntSLT: return (struct ext_order){ -1, false, false };
	case LLVMIntSLE: return (struct ext_order){ -1, true, false };
	case LLVMIntULT: return (struct ext_order){ -1, false, true };
	case LLVMIntULE: return (struct ext_order){ -1, true, true };
	case LLVMIntSGT: return (struct ext_order){ 1, false, false };
	case LLVMIntSGE: return (struct ext_order){ 1, true, false };
	case LLVMIntUGT: return (struct ext_order){ 1, false, true };
	case LLVMIntUGE: return (struct ext_order){ 1, true, true };
	case LLVMIntEQ: return (struct ext_order){ 0, true, false };
	default: return (struct ext_order){ 2, false, false };
	}
}

struct iv iv_narrow(struct iv x, LLVMIntPredicate p, struct iv b)
{
	struct ext_order o = ext_order(p);

	if (iv_empty(b) || o.dir == 2)
		return x;
	/* Unsigned: only a non-negative b says something, and x below it
	 * is not negative either. */
	if (o.uns && (b.lo < 0 || (o.dir > 0 && x.lo < 0)))
		return x;
	if (o.uns && x.lo < 0)
		x.lo = 0;
	if (o.dir <= 0) {
		int64_t m = o.incl ? b.hi : plus(b.hi, -1);

		x.hi = m < x.hi ? m : x.hi;
	}
	if (o.dir >= 0) {
		int64_t m = o.incl ? b.lo : plus(b.lo, 1);

		x.lo = m > x.lo ? m : x.lo;
	}
	return x;
}

static int64_t const_of(LLVMValueRef v, int64_t otherwise)
{
	return LLVMIsAConstantInt(v) ? LLVMConstIntGetSExtValue(v) : otherwise;
}

/* A shift by the constant s: a multiplication or a division by 2^s. */
static struct iv shifted(struct iv a, LLVMValueRef s, bool left)
{
	int64_t c = const_of(s, -1);

	if (c < 0 || c > 62)
		return IV_ANY;
	return left ? iv_mul(a, iv_point((int64_t)1 << c)) : iv_div(a, (int64_t)1 << c);
}

/* The bounds of the binary operator v (opcode op). */
static struct iv arith(struct ext *e, LLVMValueRef v, LLVMOpcode op)
{
	LLVMValueRef o1 = LLVMGetOperand(v, 1);
	struct iv a = ext_eval(e, LLVMGetOperand(v, 0)), b = ext_eval(e, o1);
	int64_t c = const_of(o1, 0);

	switch (op) {
	case LLVMAdd:
		return iv_add(a, b);
	case LLVMSub:
		return iv_add(a, iv_neg(b));
	case LLVMMul:
		return iv_mul(a, b);
	case LLVMShl:
		return shifted(a, o1, true);
	case LLVMAShr:
		return shifted(a, o1, false);
	case LLVMLShr:
		return a.lo >= 0 ? shifted(a, o1, false) : IV_ANY;
	case LLVMSDiv:
	case LLVMUDiv:
		return c > 0 && (op == LLVMSDiv || a.lo >= 0) ? iv_div(a, c) : IV_ANY;
	case LLVMSRem:
	case LLVMURem:
		return iv_rem(a, b);
	case LLVMAnd:
		return iv_and(a, b);
	case LLVMOr:
	case LLVMXor:
		return iv_or(a, b);
	default:
		return IV_ANY;
	}
}

/* OpenCL's work-item functions (mangled: _Z13get_global_idj) under
 * the launch: an id is below its size; no -l: at most the global one. */
static struct iv workitem(const struct ext *e, const char *n, LLVMValueRef dim)
{
	int64_t d = const_of(dim, -1);
	int64_t g = d >= 0 && d < 3 ? (int64_t)e->cfg->g[d] : 1;
	int64_t l = d >= 0 && d < 3 && e->cfg->l[0] ? (int64_t)e->cfg->l[d] : 0;

	if (d < 0)
		return IV_ANY;
	if (strstr(n, "get_global_id"))
		return (struct iv){ 0, g - 1 };
	if (strstr(n, "get_local_id"))
		return (struct iv){ 0, (l ? l : g) - 1 };
	if (strstr(n, "get_group_id"))
		return (struct iv){ 0, (l ? g / l : g) - 1 };
	if (strstr(n, "get_global_size"))
		return iv_point(g);
	if (strstr(n, "get_local_size"))
		return l ? iv_point(l) : (struct iv){ 1, g };
	if (strstr(n, "get_num_groups"))
		return l ? iv_point(g / l) : (struct iv){ 1, g };
	if (strstr(n, "get_global_offset"))
		return iv_point(0);
	return IV_ANY;
}

/* min, max, mul24, mad24 as arithmetic; the work-item functions. */
static struct iv call_range(struct ext *e, LLVMValueRef call)
{
	LLVMValueRef f = LLVMGetCalledValue(call);
	unsigned n = (unsigned)LLVMGetNumArgOperands(call);
	size_t len;
	const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";

	if (n == 1 && strstr(name, "get_"))
		return workitem(e, name, LLVMGetOperand(call, 0));
	if (n < 2)
		return IV_ANY;
	struct iv a = ext_eval(e, LLVMGetOperand(call, 0)), b = ext_eval(e, LLVMGetOperand(call, 1));

	if (iv_empty(a) || iv_empty(b))
		return IV_EMPTY;
	if (!strncmp(name, "_Z3min", 6))
		return (struct iv){ a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi };
	if (!strncmp(name, "_Z3max", 6))
		return (struct iv){ a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi };
	if (strstr(name, "mul24"))
		return iv_mul(a, b);
	if (strstr(name, "mad24") && n == 3)
		return iv_add(iv_mul(a, b), ext_eval(e, LLVMGetOperand(call, 2)));
	return IV_ANY;
}

/* A scalar argument of the kernel whose value is decided. */
static struct iv argument(const struct ext *e, LLVMValueRef v)
{
	for (size_t i = 0; i < e->k->nargs && i < LLVMCountParams(e->kernel); i++)
		if (LLVMGetParam(e->kernel, (unsigned)i) == v)
			return e->cfg->known[i] ? iv_point(e->value[i]) : IV_ANY;
	return IV_ANY;	/* a parameter of the kernel's own functions */
}

static struct iv compute(struct ext *e, LLVMValueRef v)
{
	if (LLVMIsAArgument(v))
		return argument(e, v);
	if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 1)
		return (struct iv){ 0, 1 };
	if (!LLVMIsAInstruction(v))
		return IV_ANY;
	LLVMOpcode op = LLVMGetInstructionOpcode(v);

	switch (op) {
	case LLVMSExt:
	case LLVMTrunc:
	case LLVMFreeze:
		return ext_eval(e, LLVMGetOperand(v, 0));
	case LLVMZExt: {
		struct iv a = ext_eval(e, LLVMGetOperand(v, 0));

		return a.lo >= 0 ? a : IV_ANY;
	}
	case LLVMSelect:
		return iv_join(ext_eval(e, LLVMGetOperand(v, 1)), ext_eval(e, LLVMGetOperand(v, 2)));
	case LLVMPHI:
		return ext_phi(e, v);
	case LLVMCall:
		return call_range(e, v);
	default:
		return LLVMGetNumOperands(v) == 2 ? arith(e, v, op) : IV_ANY;
	}
}

static struct slot *slot(struct ext *e, LLVMValueRef v)
{
	size_t h = (size_t)(((uintptr_t)v >> 4) * 0x9e3779b97f4a7c15ull) & (EXT_MEMO - 1);

	while (e->memo[h].v && e->memo[h].v != v)
		h = (h + 1) & (EXT_MEMO - 1);
	return &e->memo[h];
}

struct iv ext_eval(struct ext *e, LLVMValueRef v)
{
	struct slot *s;

	if (LLVMIsAConstantInt(v))
		return iv_point(LLVMConstIntGetSExtValue(v));
	if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
		return IV_ANY;
	s = slot(e, v);
	if (s->v)	/* a value in a cycle not yet bounded: unbounded */
		return s->done ? s->r : IV_ANY;
	if (!e->budget || e->used >= EXT_MEMO / 2)
		return IV_ANY;
	e->budget--;
	e->used++;
	*s = (struct slot){ v, IV_ANY, false };
	struct iv r = ext_guarded(e, v, compute(e, v));

	s = slot(e, v);
	s->r = r;
	s->done = true;
	return r;
}

/* t's allocation size; 0 for a type without one (opaque, a function). */
static int64_t bytes_of(const struct ext *e, LLVMTypeRef t)
{
	return LLVMTypeIsSized(t) ? (int64_t)LLVMABISizeOfType(e->td, t) : 0;
}

/* The bytes that gep adds to its pointer. */
static struct iv gep_offset(struct ext *e, LLVMValueRef gep)
{
	LLVMTypeRef t = LLVMGetGEPSourceElementType(gep);
	unsigned n = (unsigned)LLVMGetNumOperands(gep);
	struct iv off = iv_mul(ext_eval(e, LLVMGetOperand(gep, 1)),
			       iv_point(bytes_of(e, t)));

	for (unsigned i = 2; i < n && !iv_empty(off); i++) {
		LLVMValueRef x = LLVMGetOperand(gep, i);

		if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
			unsigned f = (unsigned)const_of(x, 0);

			off = iv_add(off, iv_point((int64_t)LLVMOffsetOfElement(e->td, t, f)));
			t = LLVMStructGetTypeAtIndex(t, f);
		} else {
			t = LLVMGetElementType(t);
			off = iv_add(off, iv_mul(ext_eval(e, x),
						 iv_point(bytes_of(e, t))));
		}
	}
	return off;
}

/* The kernel argument p points into, through GEPs (their offsets added
 * into *off) and casts; -1 for any other pointer. */
static int root_of(struct ext *e, LLVMValueRef p, struct iv *off)
{
	*off = iv_point(0);
	for (int depth = 0; depth < 32; depth++) {
		if (LLVMIsAGetElementPtrInst(p))
			*off = iv_add(*off, gep_offset(e, p));
		else if (LLVMIsAArgument(p))
			break;
		else if (!LLVMIsABitCastInst(p) && !LLVMIsAAddrSpaceCastInst(p))
			return -1;
		p = LLVMGetOperand(p, 0);
	}
	for (unsigned i = 0; i < e->k->nargs && i < LLVMCountParams(e->kernel); i++)
		if (LLVMGetParam(e->kernel, i) == p)
			return (int)i;
	return -1;
}

/* The bytes an access through pointer p reads or writes: its type's,
 * or a cast's (`vload4`, `(float4 *)p`) when larger. */
static int64_t access_bytes(const struct ext *e, LLVMValueRef p)
{
	int64_t n = bytes_of(e, LLVMGetElementType(LLVMTypeOf(p)));

	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef c = LLVMGetUser(u);
		int64_t m;

		if (LLVMIsABitCastInst(c) && LLVMGetTypeKind(LLVMTypeOf(c)) == LLVMPointerTypeKind &&
		    (m = bytes_of(e, LLVMGetElementType(LLVMTypeOf(c)))) > n)
			n = m;
	}
	return n > 0 ? n : 1;
}

/* One access (a GEP none of whose users is a GEP): into out. */
static void access(struct ext *e, LLVMValueRef gep, uint64_t *out)
{
	struct iv off;
	int a = root_of(e, gep, &off);
	const struct sibyl_karg *arg;

	if (a < 0 || iv_empty(off) || infinite(off.hi) || off.hi < 0)
		return;
	arg = &e->k->args[a];
	if (arg->kind != SIBYL_KARG_BUFFER && arg->kind != SIBYL_KARG_LOCAL)
		return;
	uint64_t esz = arg->type->size ? arg->type->size : 1;
	uint64_t last = (uint64_t)off.hi + (uint64_t)access_bytes(e, gep) - 1;

	if (last / esz + 1 > out[a])
		out[a] = last / esz + 1;
}

static bool outermost(LLVMValueRef gep)
{
	for (LLVMUseRef u = LLVMGetFirstUse(gep); u; u = LLVMGetNextUse(u))
		if (!LLVMIsAGetElementPtrInst(LLVMGetUser(u)))
			return true;
	return false;
}

/* The memo and the guards for block b's values. */
static void enter(struct ext *e, LLVMBasicBlockRef b)
{
	memset(e->memo, 0, sizeof(e->memo));
	e->used = 0;
	ext_guards(e, b);
}

static void block_accesses(struct ext *e, LLVMBasicBlockRef b, uint64_t *out)
{
	bool entered = false;

	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
		if (!LLVMIsAGetElementPtrInst(i) || !outermost(i))
			continue;
		if (!entered)	/* the same guards for the block's accesses */
			enter(e, b);
		entered = true;
		e->budget = EXT_BUDGET;
		access(e, i, out);
	}
}

/* v as a scalar argument plus the constant *c: its index, or -1. */
static int scalar_plus(const struct ext *e, LLVMValueRef v, int64_t *c)
{
	*c = 0;
	for (int depth = 0; depth < 8; depth++) {
		LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : 0;

		if (LLVMIsAArgument(v))
			break;
		if (op == LLVMSExt || op == LLVMZExt || op == LLVMTrunc) {
			v = LLVMGetOperand(v, 0);
		} else if ((op == LLVMAdd || op == LLVMSub) && LLVMIsAConstantInt(LLVMGetOperand(v, 1))) {
			int64_t x = LLVMConstIntGetSExtValue(LLVMGetOperand(v, 1));

			if (op == LLVMAdd ? __builtin_add_overflow(*c, x, c) :
			    __builtin_sub_overflow(*c, x, c))
				return -1;	/* no bound worth having */
			v = LLVMGetOperand(v, 0);
		} else {
			return -1;
		}
	}
	for (unsigned i = 0; i < e->k->nargs && i < LLVMCountParams(e->kernel); i++)
		if (LLVMGetParam(e->kernel, i) == v)
			return (int)i;
	return -1;
}

/* The least constant that v's only user chain adds to it (`v - 1`). */
static int64_t trailing(LLVMValueRef v)
{
	int64_t c = 0, least = 0;

	for (int depth = 0; depth < 8; depth++) {
		LLVMUseRef u = LLVMGetFirstUse(v);
		LLVMValueRef w = u ? LLVMGetUser(u) : NULL;
		LLVMOpcode op = w && LLVMIsAInstruction(w) ? LLVMGetInstructionOpcode(w) : 0;

		if (!u || LLVMGetNextUse(u))
			break;
		if ((op == LLVMAdd || op == LLVMSub) && LLVMGetOperand(w, 0) == v &&
		    LLVMIsAConstantInt(LLVMGetOperand(w, 1))) {
			int64_t x = LLVMConstIntGetSExtValue(LLVMGetOperand(w, 1));

			if (op == LLVMAdd ? __builtin_add_overflow(c, x, &c) :
			    __builtin_sub_overflow(c, x, &c))
				break;
			least = c < least ? c : least;
		} else if (op != LLVMSExt && op != LLVMZExt && op != LLVMTrunc) {
			break;
		}
		v = w;
	}
	return least;
}

/* Block b's `s + c - x + d` with s a raisable scalar and x >= 0
 * bounded (d: what follows, `blk - bx - 1`): s at least x's largest
 * - c - d. */
static void block_minuends(struct ext *e, LLVMBasicBlockRef b, int64_t *need)
{
	bool entered = false;

	for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
		int64_t c;
		int a;

		if (!LLVMIsAInstruction(i) || LLVMGetInstructionOpcode(i) != LLVMSub ||
		    LLVMIsAConstant(LLVMGetOperand(i, 1)) ||
		    (a = scalar_plus(e, LLVMGetOperand(i, 0), &c)) < 0 || !e->cfg->raisable[a])
			continue;
		if (!entered)
			enter(e, b);
		entered = true;
		e->budget = EXT_BUDGET;
		struct iv x = ext_eval(e, LLVMGetOperand(i, 1));

		c += trailing(i);
		if (!iv_empty(x) && x.lo >= 0 && x.hi < EXT_INF && iv_plus(x.hi, -c) > need[a])
			need[a] = iv_plus(x.hi, -c);
	}
}

/* Both passes over the kernel's blocks: the scalars raised, then the
 * accesses bounded with them. */
static void passes(struct ext *e, uint64_t *out, int64_t *raised)
{
	int64_t *need = sibyl_xcalloc(e->k->nargs + 1, sizeof(*need));

	for (size_t i = 0; i < e->blocks.n; i++)
		block_minuends(e, e->blocks.block[i], need);
	for (size_t a = 0; a < e->k->nargs; a++)
		if (need[a] > e->value[a])
			e->value[a] = raised[a] = need[a];
	for (size_t i = 0; i < e->blocks.n; i++)
		block_accesses(e, e->blocks.block[i], out);
	free(need);
}

int sibyl_arg_extents(const void *bc, size_t size, const struct sibyl_kernel *k,
		      const struct sibyl_extent_cfg *cfg, uint64_t *out, int64_t *raised, char *err,
		      size_t errlen)
{
	struct ic_module m;
	struct ext *e;

	memset(out, 0, k->nargs * sizeof(*out));
	memset(raised, 0, k->nargs * sizeof(*raised));
	if (ic_module_open_ssa(&m, bc, size, k->name, "kernel: bounding the buffers' indices", err,
			       errlen) < 0)
		return -1;
	e = sibyl_xcalloc(1, sizeof(*e));
	e->kernel = LLVMGetNamedFunction(m.mod, k->name);
	e->td = LLVMGetModuleDataLayout(m.mod);
	e->k = k;
	e->cfg = cfg;
	e->value = sibyl_xcalloc(k->nargs + 1, sizeof(*e->value));
	memcpy(e->value, cfg->value, k->nargs * sizeof(*e->value));
	ocl_cfg_of_function(&e->blocks, e->kernel);
	passes(e, out, raised);
	free(e->value);
	ocl_cfg_free(&e->blocks);
	free(e);
	ic_module_close(&m);
	return 0;
}
