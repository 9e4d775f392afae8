/*
 * --check: the barriers each work-item reached, from the per-item rows
 * of the counters (instrument.h).  A counter stands for its blocks'
 * summed histogram, which says how many barrier calls one entry makes;
 * a row holds one work-item's entries.  No new instrumentation: the
 * counts are the ones -i takes.
 */
#include "ocl/instrument/instrument_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* OpenCL 1.x barrier() and 2.0 work_group_barrier(), by mangled name. */
static bool barrier_name(const char *name)
{
	return !strncmp(name, "_Z7barrier", 10) || !strncmp(name, "_Z18work_group_barrier", 22);
}

bool ic_slot_is_barrier(const struct ic_slot *s)
{
	return s->kind == IC_PLAIN && !strncmp(s->name, "call ", 5) && barrier_name(s->name + 5);
}

unsigned ic_barrier_call_line(LLVMValueRef i)
{
	size_t len;

	if (!LLVMIsACallInst(i) || !LLVMIsAFunction(LLVMGetCalledValue(i)) ||
	    !barrier_name(LLVMGetValueName2(LLVMGetCalledValue(i), &len)))
		return 0;
	return LLVMGetDebugLocLine(i);
}

void ic_barrier_lines(const struct ic_blocks *blocks, struct ic_layout *layout)
{
	layout->barrier_line = sibyl_xcalloc(layout->ncounters + 1, sizeof(unsigned));
	for (size_t k = 0; k < blocks->n; k++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(blocks->block[k]); i;
		     i = LLVMGetNextInstruction(i)) {
			unsigned line = ic_barrier_call_line(i);

			if (line && !layout->barrier_line[blocks->counter[k]])
				layout->barrier_line[blocks->counter[k]] = line;
		}
}

unsigned sibyl_instrumented_barrier_line(const struct sibyl_instrumented *in, const void *buffer,
					 size_t size, size_t a, size_t b)
{
	const struct ic_layout *l = in->layout;
	size_t row = l->ncounters * sizeof(uint64_t);
	uint64_t va, vb;

	if (!l->barrier_line || !row || (a + 1) * row > size || (b + 1) * row > size)
		return 0;
	for (size_t c = 0; c < l->ncounters; c++) {
		if (!l->barrier_line[c])
			continue;
		memcpy(&va, (const char *)buffer + a * row + c * sizeof(va), sizeof(va));
		memcpy(&vb, (const char *)buffer + b * row + c * sizeof(vb), sizeof(vb));
		if (va != vb)
			return l->barrier_line[c];
	}
	return 0;
}

/* The barriers go, their counts stay (the blocks' histograms were taken
 * before): each work-item then runs its own way to the end, where a
 * runtime that assumes barriers are uniform (PoCL) would make every
 * work-item follow the first one's branch at a barrier, or crash. */
void ic_strip_barriers(LLVMModuleRef mod)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				if (!LLVMIsACallInst(i))
					continue;
				LLVMValueRef callee = LLVMGetCalledValue(i);
				size_t len;

				if (LLVMIsAFunction(callee) &&
				    barrier_name(LLVMGetValueName2(callee, &len)))
					LLVMInstructionEraseFromParent(i);
			}
}

uint64_t *sibyl_instrumented_barriers(const struct sibyl_instrumented *in, const void *buffer,
				      size_t size, size_t *rows)
{
	const struct ic_layout *l = in->layout;
	size_t row = l->ncounters * sizeof(uint64_t);

	*rows = 0;
	if (!l->per_item || !row || size % row)
		return NULL;
	uint64_t *per_counter = sibyl_xcalloc(l->ncounters, sizeof(*per_counter));

	for (size_t c = 0; c < l->ncounters; c++)
		for (size_t k = 0; k < l->counter_hist[c].n; k++)
			if (ic_slot_is_barrier(&l->slots[l->counter_hist[c].slot[k]]))
				per_counter[c] += l->counter_hist[c].add[k];
	*rows = size / row;
	uint64_t *out = sibyl_xcalloc(*rows + 1, sizeof(*out)), v;

	for (size_t r = 0; r < *rows; r++)
		for (size_t c = 0; c < l->ncounters; c++) {
			if (!per_counter[c])
				continue;
			/* memcpy: the caller's buffer need not be aligned for uint64_t */
			memcpy(&v, (const char *)buffer + r * row + c * sizeof(v), sizeof(v));
			out[r] += v * per_counter[c];
		}
	free(per_counter);
	return out;
}
