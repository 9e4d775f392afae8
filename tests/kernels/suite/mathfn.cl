/* Math-library kernels: element-wise, each work-item's time spent in
 * calls to transcendental functions (exp, log, pow, sin, atan2...) and
 * square roots, whose costs a count of calls cannot tell apart from a
 * get_global_id. Arguments are folded into each function's domain. */

/* The Black-Scholes call price, with the cumulative normal of
 * Abramowitz and Stegun (one exp) and a log and a square root. */
static float cnd(float d)
{
	float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
	float w = 0.3989423f * exp(-0.5f * d * d) *
		  (k * (0.3193815f + k * (-0.3565638f + k * (1.7814779f + k * (-1.8212560f +
		  k * 1.3302744f)))));
	return d > 0.0f ? 1.0f - w : w;
}

__kernel void blackscholes(__global const float *s, __global const float *x, __global float *c)
{
	size_t i = get_global_id(0);
	float sp = 5.0f + fabs(s[i]) * 1e-3f, st = 1.0f + fabs(x[i]) * 1e-3f;
	float t = 0.5f, r = 0.02f, v = 0.3f;
	float d1 = (log(sp / st) + (r + 0.5f * v * v) * t) / (v * sqrt(t));
	float d2 = d1 - v * sqrt(t);
	c[i] = sp * cnd(d1) - st * exp(-r * t) * cnd(d2);
}

/* Gamma correction and its inverse: pow and cbrt. */
__kernel void gamma_pow(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	float v = fabs(a[i]) * 1e-4f;
	b[i] = pow(v, 2.2f) + pow(v, 0.4545f) + cbrt(v);
}

/* Cartesian to polar and back: atan2, hypot, sin, cos. */
__kernel void polar(__global const float *x, __global const float *y, __global float *o)
{
	size_t i = get_global_id(0);
	float r = hypot(x[i], y[i]), th = atan2(y[i], x[i]) + 0.1f;
	o[i] = r * cos(th) + r * sin(th);
}

/* Eight softplus layers: a loop of exp and log1p. */
__kernel void softplus8(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	float v = a[i] * 1e-3f;
	for (int k = 0; k < 8; k++)
		v = log1p(exp(0.5f * v - 1.0f));
	b[i] = v;
}

/* Sixteen tanh units of one input, normalised by a square root. */
__kernel void tanh16(__global const float *a, __global float *b)
{
	size_t i = get_global_id(0);
	float v = a[i] * 1e-3f, acc = 0.0f;
	for (int k = 0; k < 16; k++)
		acc += tanh(v * (float)(k + 1) * 0.125f);
	b[i] = acc * rsqrt(1.0f + acc * acc);
}
