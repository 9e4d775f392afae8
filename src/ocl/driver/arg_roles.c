/* What a kernel does with its integer scalars, from its IR (arg_roles.h). */
#include "ocl/driver/arg_roles.h"
#include "ocl/instrument/instrument_internal.h"
#include "core/alloc.h"
#include "core/log.h"

#include <llvm-c/Core.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How a value derives from the scalar followed: `deg` variables
 * multiplied in (a stride), or `added` to a variable before any
 * multiplication (an offset, however scaled afterwards), or a variable
 * subtracted from it (`n - 1 - gid`: a length); `scale`: log2 of the
 * constants it was multiplied by (`i < 4 * n`: n is a quarter length). */
struct state {
	unsigned deg, added, minuend, scale;
	unsigned ptr;	/* a pointer into the buffer followed, not yet loaded */
};

#define MAX_DEG 3
#define MAX_SCALE 15

struct item {
	LLVMValueRef v;
	struct state s;
};

/* The values already followed in each state: an open-addressing set
 * (kernels of thousands of instructions, dozens of scalars). */
struct walk {
	uintptr_t *seen;
	size_t cap, used;
	struct item *todo;
	size_t n, max;
	LLVMValueRef kernel;
	const struct sibyl_kernel *k;
	struct sibyl_arg_role *role;
};

static uintptr_t key(LLVMValueRef v, struct state s)
{
	uintptr_t bits = s.deg | s.added << 2 | s.minuend << 3 | s.scale << 4 | s.ptr << 8;

	return (uintptr_t)v ^ (bits << 52);	/* user-space pointers: 47 bits */
}

static bool seen_add(struct walk *w, uintptr_t k)
{
	if (2 * (w->used + 1) > w->cap) {	/* grow, rehash */
		uintptr_t *old = w->seen;
		size_t n = w->cap;

		w->cap = n ? 2 * n : 256;
		w->seen = sibyl_xcalloc(w->cap, sizeof(*w->seen));
		w->used = 0;
		for (size_t i = 0; i < n; i++)
			if (old[i])
				seen_add(w, old[i]);
		free(old);
	}
	size_t h = (size_t)((k >> 4) * 0x9e3779b97f4a7c15ull) & (w->cap - 1);

	for (; w->seen[h]; h = (h + 1) & (w->cap - 1))
		if (w->seen[h] == k)
			return false;
	w->seen[h] = k;
	w->used++;
	return true;
}

static void push(struct walk *w, LLVMValueRef v, struct state s)
{
	if (!seen_add(w, key(v, s)))
		return;
	if (w->n == w->max)
		w->todo = sibyl_xreallocarray(w->todo, w->max = w->max ? 2 * w->max : 64,
					      sizeof(*w->todo));
	w->todo[w->n++] = (struct item){ v, s };
}

static bool is_const(LLVMValueRef v)
{
	return LLVMIsAConstant(v) != NULL;
}

/* Whether v changes across work-items or iterations: it depends on a
 * work-item's id, a loop (a phi), memory or a call.  `size * t` scales
 * a position t by a size; `size * gid`, `j * size` make size a stride. */
static bool varying(LLVMValueRef v, int depth)
{
	size_t len;

	if (is_const(v) || LLVMIsAArgument(v))
		return false;
	if (!LLVMIsAInstruction(v) || LLVMIsAPHINode(v) || LLVMIsALoadInst(v) || depth > 16)
		return true;
	if (LLVMIsACallInst(v)) {
		LLVMValueRef f = LLVMGetCalledValue(v);
		const char *n = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";

		/* _Z15get_global_sizej, _Z14get_num_groupsj, ...: the same everywhere */
		return !strstr(n, "get_global_size") && !strstr(n, "get_local_size") &&
		       !strstr(n, "get_num_groups") && !strstr(n, "get_work_dim");
	}
	for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
		if (varying(LLVMGetOperand(v, (unsigned)i), depth + 1))
			return true;
	return false;
}

/* u = v + phi, with u one of phi's incoming values: `c += v` in a loop,
 * v times the iterations. */
static bool accumulates(LLVMValueRef u, LLVMValueRef phi)
{
	if (!LLVMIsAPHINode(phi))
		return false;
	for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++)
		if (LLVMGetIncomingValue(phi, i) == u)
			return true;
	return false;
}

/* The kernel argument a buffer access' pointer starts from, or NULL. */
static const char *buffer_of(const struct walk *w, LLVMValueRef p)
{
	while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p))
		p = LLVMGetOperand(p, 0);
	if (!LLVMIsAArgument(p))
		return NULL;
	for (size_t i = 0; i < w->k->nargs; i++)
		if (LLVMGetParam(w->kernel, (unsigned)i) == p)
			return w->k->args[i].name;
	return NULL;
}

/* v is index operand of the access gep: the role its state gives. */
static void indexes(struct walk *w, LLVMValueRef gep, struct state s)
{
	LLVMValueRef p = LLVMGetOperand(gep, 0);
	unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
	const char *b;

	if (space < 1 || space > 3)	/* private arrays say nothing of buffers */
		return;
	if (s.minuend && !s.deg) {
		w->role->flags |= SIBYL_ROLE_BOUND;
	} else if (s.deg) {
		w->role->flags |= SIBYL_ROLE_STRIDE;
		if (s.deg > w->role->degree)
			w->role->degree = s.deg;
	} else {
		w->role->flags |= SIBYL_ROLE_OFFSET;
	}
	if (!w->role->buffer && (b = buffer_of(w, p)))
		w->role->buffer = sibyl_xstrdup(b);
}

/* Into a call of the kernel's own function: its parameter in that slot. */
static void into_call(struct walk *w, LLVMValueRef call, LLVMValueRef v, struct state s)
{
	LLVMValueRef f = LLVMGetCalledValue(call);
	unsigned n = (unsigned)LLVMGetNumArgOperands(call);

	if (!LLVMIsAFunction(f) || LLVMIsDeclaration(f) || LLVMCountParams(f) != n)
		return;
	for (unsigned i = 0; i < n; i++)
		if (LLVMGetOperand(call, i) == v)
			push(w, LLVMGetParam(f, i), s);
}

/* A scalar stored to private memory comes back in its loads. */
static void through_memory(struct walk *w, LLVMValueRef store, LLVMValueRef v, struct state s)
{
	LLVMValueRef p = LLVMGetOperand(store, 1);

	if (LLVMGetOperand(store, 0) != v || !LLVMIsAAllocaInst(p))
		return;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u))
		if (LLVMIsALoadInst(LLVMGetUser(u)))
			push(w, LLVMGetUser(u), s);
}

static struct state multiplied(struct state s)
{
	if (!s.added && s.deg < MAX_DEG)
		s.deg++;
	return s;
}

/* Times the constant o (1 << o for a shift). */
static struct state scaled(struct state s, LLVMValueRef o, bool shift)
{
	long long c = LLVMIsAConstantInt(o) ? LLVMConstIntGetSExtValue(o) : 1;
	unsigned b = shift ? (unsigned)(c > 0 && c < MAX_SCALE ? c : 0) : 0;

	for (unsigned long long m = c < 0 ? -(unsigned long long)c : (unsigned long long)c;
	     !shift && m > 1; m >>= 1)
		b++;
	s.scale = s.scale + b > MAX_SCALE ? MAX_SCALE : s.scale + b;
	return s;
}

/* v + o, v - o, o - v (at 1) into u: a stride accumulated in a loop,
 * a length counted down from, or an offset. */
static struct state summed(LLVMValueRef u, LLVMOpcode op, unsigned at, LLVMValueRef o,
			   struct state s)
{
	bool var = varying(o, 0);

	if (op == LLVMAdd && accumulates(u, o))
		s = multiplied(s);
	else if (op == LLVMSub && at == 0 && var && !s.deg && !s.added)
		s.minuend = 1;
	else if (var && !s.deg && !s.minuend)
		s.added = 1;
	return s;
}

/* v into mul24(a, b) or mad24(a, b, c): a * b (+ c). */
static struct state product(LLVMValueRef call, LLVMValueRef v, struct state s)
{
	LLVMValueRef a = LLVMGetOperand(call, 0), b = LLVMGetOperand(call, 1);
	LLVMValueRef c = LLVMGetNumArgOperands(call) == 3 ? LLVMGetOperand(call, 2) : NULL;

	if (a == v || b == v) {
		if (varying(a == v ? b : a, 0))
			return multiplied(s);
		if (c && varying(c, 0))
			s.added = !s.deg;
	} else if (c == v && (varying(a, 0) || varying(b, 0))) {
		s.added = !s.deg;
	}
	return s;
}

/* The image v passed first to a read_image or write_image builtin
 * (mangled: _Z12read_imageui14ocl_image2d_ro...): its channel type. */
static unsigned image_use(const char *n, LLVMValueRef call, LLVMValueRef v)
{
	char *end;
	unsigned long len = strncmp(n, "_Z", 2) ? 0 : strtoul(n + 2, &end, 10);
	const char *name = len ? end : "", *t;

	if (!len || LLVMGetOperand(call, 0) != v)
		return 0;
	if (!strncmp(name, "read_image", 10) && len >= 11)
		t = name + 10;
	else if (!strncmp(name, "write_image", 11) && len >= 12)
		t = name + 11;
	else
		return 0;
	len -= (unsigned long)(t - name);
	if (len == 1 && (*t == 'f' || *t == 'h'))
		return SIBYL_ROLE_IMAGE_FLOAT;
	if (len == 1 && *t == 'i')
		return SIBYL_ROLE_IMAGE_INT;
	return len == 2 && !strncmp(t, "ui", 2) ? SIBYL_ROLE_IMAGE_UINT : 0;
}

/* OpenCL's integer builtins (mangled: _Z5mul24ii, _Z5mad24iii, _Z3minii)
 * as the arithmetic they stand for, the image builtins as what they say
 * of an image; other builtins end the walk. */
static void builtin(struct walk *w, LLVMValueRef call, LLVMValueRef v, struct state s)
{
	size_t len;
	const char *n = LLVMGetValueName2(LLVMGetCalledValue(call), &len);

	w->role->flags |= image_use(n, call, v);
	if (!strncmp(n, "_Z3min", 6) || !strncmp(n, "_Z3max", 6))
		push(w, call, s);
	else if (LLVMGetNumArgOperands(call) >= 2 && (strstr(n, "mul24") || strstr(n, "mad24")))
		push(w, call, product(call, v, s));
}

/* Arithmetic: where v (operand `at` of u, the other one `o`) goes. */
static void arith(struct walk *w, LLVMValueRef u, LLVMOpcode op, unsigned at, LLVMValueRef o,
		  struct state s)
{
	bool var = varying(o, 0);

	switch (op) {
	case LLVMAdd:
	case LLVMSub:
	case LLVMOr:
	case LLVMXor:
		push(w, u, summed(u, op, at, o, s));
		break;
	case LLVMMul:
		push(w, u, var ? multiplied(s) : scaled(s, o, false));
		break;
	case LLVMShl:
		if (at == 0)	/* a shift amount indexes nothing */
			push(w, u, var ? multiplied(s) : scaled(s, o, true));
		break;
	case LLVMSDiv:
	case LLVMUDiv:
	case LLVMSRem:
	case LLVMURem:
		if (at == 1 && !is_const(o))
			w->role->flags |= SIBYL_ROLE_DIVISOR;
		else if (at == 0 && (op == LLVMSDiv || op == LLVMUDiv || !is_const(o)))
			push(w, u, s);	/* x % 64 is in range whatever x */
		break;
	case LLVMAnd:	/* reps & 63, likewise */
		if (!is_const(o))
			push(w, u, s);
		break;
	case LLVMAShr:
	case LLVMLShr:
		if (at == 0)
			push(w, u, s);
		break;
	default:
		break;
	}
}

/* A pointer into a buffer: the integers loaded through it are followed
 * (`a[idx[i]]`: idx holds indices). */
static void follow_pointer(struct walk *w, LLVMValueRef v, struct state s)
{
	for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
		LLVMValueRef u = LLVMGetUser(use);
		LLVMOpcode op = LLVMIsAInstruction(u) ? LLVMGetInstructionOpcode(u) : 0;

		if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast ||
		    op == LLVMPHI || op == LLVMSelect) {
			if (LLVMGetOperand(u, 0) == v || op == LLVMPHI || op == LLVMSelect)
				push(w, u, s);
		} else if (op == LLVMLoad &&
			   LLVMGetTypeKind(LLVMTypeOf(u)) == LLVMIntegerTypeKind) {
			push(w, u, (struct state){ 0 });
		} else if (op == LLVMCall) {
			into_call(w, u, v, s);
		}
	}
}

static void follow(struct walk *w, LLVMValueRef v, struct state s)
{
	if (s.ptr) {
		follow_pointer(w, v, s);
		return;
	}
	for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
		LLVMValueRef u = LLVMGetUser(use);
		LLVMOpcode op = LLVMIsAInstruction(u) ? LLVMGetInstructionOpcode(u) : 0;
		unsigned at = LLVMGetNumOperands(u) > 1 && LLVMGetOperand(u, 1) == v;

		switch (op) {
		case LLVMSExt: case LLVMZExt: case LLVMTrunc: case LLVMFreeze: case LLVMPHI:
			push(w, u, s);
			break;
		case LLVMSelect:
			if (LLVMGetOperand(u, 0) != v)
				push(w, u, s);
			break;
		case LLVMICmp:
			if (is_const(LLVMGetOperand(u, !at)))
				break;
			w->role->flags |= SIBYL_ROLE_BOUND;
			if (s.scale > w->role->scale)
				w->role->scale = s.scale;
			break;
		case LLVMGetElementPtr:
			if (LLVMGetOperand(u, 0) != v)
				indexes(w, u, s);
			break;
		case LLVMCall:
			if (LLVMIsAFunction(LLVMGetCalledValue(u)) &&
			    LLVMIsDeclaration(LLVMGetCalledValue(u)))
				builtin(w, u, v, s);
			else
				into_call(w, u, v, s);
			break;
		case LLVMStore:
			through_memory(w, u, v, s);
			break;
		default:
			if (op && LLVMGetNumOperands(u) == 2)
				arith(w, u, op, at, LLVMGetOperand(u, !at), s);
			break;
		}
	}
}

static void walk_arg(struct walk *w, unsigned i)
{
	w->used = w->n = 0;
	if (w->seen)
		memset(w->seen, 0, w->cap * sizeof(*w->seen));
	push(w, LLVMGetParam(w->kernel, i),
	     (struct state){ .ptr = w->k->args[i].kind == SIBYL_KARG_BUFFER });
	while (w->n) {
		struct item it = w->todo[--w->n];

		follow(w, it.v, it.s);
	}
}

static bool int_scalar(const struct sibyl_karg *a)
{
	return a->kind == SIBYL_KARG_VALUE && a->type->kind == SIBYL_KT_INT && !a->type->is_bool;
}

int sibyl_arg_roles(const void *bc, size_t size, const struct sibyl_kernel *k,
		    struct sibyl_arg_role *out, char *err, size_t errlen)
{
	struct ic_module m;
	struct walk w = { 0 };

	memset(out, 0, k->nargs * sizeof(*out));
	if (ic_module_open_ssa(&m, bc, size, k->name, "kernel: reading the arguments' uses", err,
			       errlen) < 0)
		return -1;
	w.kernel = LLVMGetNamedFunction(m.mod, k->name);
	w.k = k;
	for (unsigned i = 0; i < k->nargs && i < LLVMCountParams(w.kernel); i++) {
		if (!int_scalar(&k->args[i]) && k->args[i].kind != SIBYL_KARG_BUFFER &&
		    k->args[i].kind != SIBYL_KARG_IMAGE)
			continue;
		w.role = &out[i];
		walk_arg(&w, i);
	}
	free(w.seen);
	free(w.todo);
	ic_module_close(&m);
	return 0;
}

void sibyl_arg_roles_free(struct sibyl_arg_role *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].buffer);
}
