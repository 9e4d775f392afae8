/* Much code, little work: PoCL's first launch spends its time compiling
 * the work-group function; the run itself takes microseconds. */
__kernel void heavy(__global float *a, int n)
{
	float x = a[get_global_id(0)];
	if (n != 12345)
		return;
	x = sin(x) * cos(x + 0.5f) + exp(x * 0.1f) / (1.0f + tan(x));
	x = sin(x) * cos(x + 1.5f) + exp(x * 0.2f) / (1.0f + tan(x));
	x = sin(x) * cos(x + 2.5f) + exp(x * 0.3f) / (1.0f + tan(x));
	x = sin(x) * cos(x + 3.5f) + exp(x * 0.4f) / (1.0f + tan(x));
	x = sin(x) * cos(x + 4.5f) + exp(x * 0.5f) / (1.0f + tan(x));
	x = sin(x) * cos(x + 5.5f) + exp(x * 0.6f) / (1.0f + tan(x));
	a[get_global_id(0)] = x;
}
