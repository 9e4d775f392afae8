/*
 * A spectrum analyser's use of FFTW (bench/plan/libs): frames of the
 * sizes audio and image code meets (powers of two, 441 and 480 per
 * 10 ms at 44.1 and 48 kHz and their multiples, image rows, a
 * prime-length record), each size planned once with FFTW_ESTIMATE and
 * executed on every frame of that size.  Prints a checksum.
 * Usage: fft_app [FRAMES]
 */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
	int n, weight;
} sizes[] = {
	{ 256, 30 }, { 441, 60 }, { 480, 60 }, { 512, 40 }, { 640, 10 }, { 882, 30 },
	{ 960, 30 }, { 1009, 5 }, { 1024, 80 }, { 1080, 10 }, { 1920, 10 }, { 2048, 40 },
	{ 4096, 30 }, { 4410, 15 }, { 4800, 15 }, { 8192, 10 }, { 16384, 5 }, { 44100, 3 },
	{ 65536, 2 },
};
#define NSIZES (sizeof(sizes) / sizeof(*sizes))

int main(int argc, char **argv)
{
	long frames = argc > 1 ? atol(argv[1]) : 3000, total = 0;
	fftw_plan plans[NSIZES] = { 0 };
	fftw_complex *in[NSIZES] = { 0 }, *out[NSIZES] = { 0 };
	unsigned long long x = 88172645463325252ull;
	double sum = 0;

	for (size_t i = 0; i < NSIZES; i++)
		total += sizes[i].weight;
	for (long f = 0; f < frames; f++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		long pick = (long)(x % (unsigned long long)total);
		size_t k = 0;

		while (pick >= sizes[k].weight)
			pick -= sizes[k++].weight;
		int n = sizes[k].n;

		if (!plans[k]) {
			in[k] = fftw_alloc_complex((size_t)n);
			out[k] = fftw_alloc_complex((size_t)n);
			plans[k] = fftw_plan_dft_1d(n, in[k], out[k], FFTW_FORWARD, FFTW_ESTIMATE);
		}
		for (int i = 0; i < n; i++) {
			in[k][i][0] = (double)((x >> (i % 40)) & 0xff) / 256 - 0.5;
			in[k][i][1] = 0;
		}
		fftw_execute(plans[k]);
		sum += out[k][n / 3][0];
	}
	for (size_t k = 0; k < NSIZES; k++)
		if (plans[k]) {
			fftw_destroy_plan(plans[k]);
			fftw_free(in[k]);
			fftw_free(out[k]);
		}
	printf("%ld frames, checksum %.6g\n", frames, sum);
	return 0;
}
