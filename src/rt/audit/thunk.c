/*
 * Thunks for bindings made before the wrapper is loaded.  The runtime
 * loads the wrappers from its constructor, but a program linked with
 * -z now (or run with LD_BIND_NOW) has its PLT bound before any
 * constructor runs, and glibc >= 2.35 reports those bindings to
 * la_symbind too.  Such a binding gets thunk i, `jmp *slot[i](%rip)`:
 * the slot holds the real function until the wrapper is ready, then the
 * wrapper's.  Calls made in between (from constructors that run before
 * the runtime's) reach the library unrecorded.  A thunk costs one
 * predicted indirect jump per call.  Once a function's thunk was handed
 * out it is handed out for every later binding too, so that the
 * function's address is the same wherever the program takes it.
 */
#include "rt/audit/audit.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define THUNK_BYTES 8

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* One mapping, code first, slots after it (within a rel32's reach). */
void au_thunks_make(struct au_wrapper *w)
{
	size_t code = page_round(w->nfns * THUNK_BYTES), slots = page_round(w->nfns * sizeof(uintptr_t));

	if (!w->nfns)
		return;
	unsigned char *m = mmap(NULL, code + slots, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		goto fail;
	uintptr_t *slot = (uintptr_t *)(m + code);

	for (size_t i = 0; i < w->nfns; i++) {
		unsigned char *t = m + i * THUNK_BYTES;
		int32_t rel = (int32_t)((unsigned char *)&slot[i] - (t + 6));

		t[0] = 0xff;	/* jmp *rel32(%rip) */
		t[1] = 0x25;
		memcpy(t + 2, &rel, sizeof(rel));
		t[6] = t[7] = 0xcc;	/* int3: never reached */
	}
	if (mprotect(m, code, PROT_READ | PROT_EXEC) < 0) {
		munmap(m, code + slots);
		goto fail;
	}
	w->thunks = (struct au_thunks){ m, slot };
	return;
fail:
	au_debug("no thunks (bindings made before the wrapper loads stay unrecorded)", w->lib_path);
}

uintptr_t au_bind(struct au_wrapper *w, struct au_fn *fn, uintptr_t real)
{
	size_t i = (size_t)(fn - w->fns);

	if (__atomic_load_n(&w->ready, __ATOMIC_ACQUIRE) && !fn->thunk_used)
		return w->base + fn->offset;
	if (!w->thunks.code)
		return w->ready ? w->base + fn->offset : real;
	uintptr_t empty = 0;

	/* Until the wrapper is ready: fails when it already is. */
	__atomic_compare_exchange_n(&w->thunks.slot[i], &empty, real, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	fn->thunk_used = true;
	return (uintptr_t)(w->thunks.code + i * THUNK_BYTES);
}

void au_thunks_retarget(struct au_wrapper *w)
{
	for (size_t i = 0; w->thunks.code && i < w->nfns; i++)
		__atomic_store_n(&w->thunks.slot[i], w->base + w->fns[i].offset, __ATOMIC_RELEASE);
}
