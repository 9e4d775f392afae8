/* OpenCL 1.x's mem_fence, read_mem_fence and write_mem_fence: PoCL's
 * source build runs them, its kernel library has no definition for SPIR
 * bitcode (-i, --spir), so sibyl defines them by LLVM fences.  Each
 * work-item publishes a value, then a flag, ordered by the fences. */
__kernel void legacy_fences(__global int *data, __global volatile int *flag,
			    __global const int *in)
{
	size_t g = get_global_id(0);

	data[g] = in[g] * 3;
	write_mem_fence(CLK_GLOBAL_MEM_FENCE);
	flag[g] = 1;
	mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
	if (flag[g]) {
		read_mem_fence(CLK_GLOBAL_MEM_FENCE);
		data[g] += 1;
	}
}
