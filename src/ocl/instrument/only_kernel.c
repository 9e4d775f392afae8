/*
 * The SPIR bitcode of one kernel (sibyl_spir_only_kernel, instrument.h):
 * clang compiles the whole file, and the device links the whole module,
 * so one kernel calling a function the file declares and never defines
 * made every kernel of the file fail to build on the SPIR path (--spir,
 * --check's probes).  -i already keeps its kernel alone (ic_rewrite).
 */
#include "ocl/instrument/instrument_internal.h"

#include <stdlib.h>

int sibyl_spir_only_kernel(const void *bc, size_t size, const char *kernel, void **out,
			   size_t *out_size, char *err, size_t errlen)
{
	struct ic_module m;
	LLVMValueRef *fns = NULL;
	int nf, rc = -1;

	*out = NULL;
	*out_size = 0;
	if (ic_module_open(&m, bc, size, kernel, err, errlen))
		return -1;
	nf = ic_reachable(&m, &fns);
	if (nf >= 0) {
		ic_keep_only(m.mod, fns, nf);
		/* No pass: the IR stays the very IR clang wrote, so that
		 * Oclgrind counts on it what -i counts. */
		rc = ic_emit(&m, "the kernel's IR alone", NULL, out, out_size);
	}
	free(fns);
	ic_module_close(&m);
	return rc;
}
