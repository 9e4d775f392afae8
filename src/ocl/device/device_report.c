/* The human table `sibyl device` prints for a device profile, and the
 * byte sizes it reads and prints. */
#include "ocl/device/device.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* "850 ns", "12.3 us", "1.23 ms", "2.50 s"; "-" when not measured. */
static const char *fmt_time(char *buf, size_t len, double s, unsigned n)
{
	if (!n) {
		snprintf(buf, len, "-");
	} else if (s < 0) {	/* a difference of two noisy medians */
		buf[0] = '-';
		fmt_time(buf + 1, len - 1, -s, n);
	} else if (s < 1e-6) {
		snprintf(buf, len, "%.0f ns", s * 1e9);
	} else if (s < 1e-3) {
		snprintf(buf, len, "%.1f us", s * 1e6);
	} else if (s < 1) {
		snprintf(buf, len, "%.2f ms", s * 1e3);
	} else {
		snprintf(buf, len, "%.2f s", s);
	}
	return buf;
}

const char *sibyl_fmt_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (b >= 1024 && b % 1024 == 0 && u < 4) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", b, unit[u]);
	return buf;
}

int sibyl_parse_bytes(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; int shift; } units[] = {
		{ "", 0 }, { "B", 0 }, { "K", 10 }, { "KB", 10 }, { "KiB", 10 },
		{ "M", 20 }, { "MB", 20 }, { "MiB", 20 }, { "G", 30 }, { "GB", 30 },
		{ "GiB", 30 }, { "T", 40 }, { "TB", 40 }, { "TiB", 40 },
	};
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v > (UINT64_MAX >> units[i].shift))
			return -1;
		*out = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -1;
}

static void latency_row(FILE *out, const char *what, const struct sibyl_timing *t)
{
	char a[24], b[24], c[24], d[24];
	unsigned n = t->host.n ? t->host.n : t->device.n;

	fprintf(out, "  %-26s %10s %10s %10s %12s %5u\n", what,
		fmt_time(a, sizeof(a), t->host.median, t->host.n),
		fmt_time(b, sizeof(b), t->host.min, t->host.n),
		fmt_time(c, sizeof(c), t->host.stdev, t->host.n),
		fmt_time(d, sizeof(d), t->device.median, t->device.n), n);
}

static void print_latencies(FILE *out, const struct sibyl_device_profile *p)
{
	struct sibyl_timing exec = { { 0, 0, 0, 0 }, p->launch_exec };
	char a[24], b[24], c[24];

	fprintf(out, "  %-26s %10s %10s %10s %12s %5s\n", "latency", "median", "min", "stdev",
		"device med.", "n");
	latency_row(out, "command (marker)", &p->command);
	latency_row(out, "host->device (1 byte)", &p->transfer[SIBYL_H2D]);
	latency_row(out, "device->host (1 byte)", &p->transfer[SIBYL_D2H]);
	latency_row(out, "device->device (1 byte)", &p->transfer[SIBYL_D2D]);
	latency_row(out, "mapped host->device (1 B)", &p->transfer[SIBYL_H2D_MAP]);
	latency_row(out, "mapped device->host (1 B)", &p->transfer[SIBYL_D2H_MAP]);
	latency_row(out, "kernel launch (empty)", &p->launch);
	latency_row(out, "kernel exec (END-START)", &exec);
	if (p->with_profiling.n)
		fprintf(out, "  profiling overhead: %s (%.1f%%): launch %s with, %s without\n",
			fmt_time(a, sizeof(a), p->profiling_overhead_s, 1),
			p->profiling_overhead_pct,
			fmt_time(b, sizeof(b), p->with_profiling.median, 1),
			fmt_time(c, sizeof(c), p->without_profiling.median, 1));
}

/* Curves of directions [from, to) side by side. */
static void print_curves(FILE *out, const struct sibyl_device_profile *p, int from, int to)
{
	size_t rows = 0;
	char a[24], b[24];

	for (int d = from; d < to; d++)
		if (p->curve[d].count > rows)
			rows = p->curve[d].count;
	fprintf(out, "\n  %-9s", "bandwidth");
	for (int d = from; d < to; d++)
		fprintf(out, " %10s %8s", sibyl_transfer_dir_name(d), "GB/s");
	fputc('\n', out);
	for (size_t i = 0; i < rows; i++) {
		fprintf(out, "  %-9s", sibyl_fmt_bytes(a, sizeof(a), p->curve[from].points[i].bytes));
		for (int d = from; d < to; d++) {
			const struct sibyl_bw_point *pt = &p->curve[d].points[i];

			if (i < p->curve[d].count)
				fprintf(out, " %10s %8.3f",
					fmt_time(b, sizeof(b), pt->t.host.median, pt->t.host.n),
					pt->gbps);
			else
				fprintf(out, " %10s %8s", "-", "-");
		}
		fputc('\n', out);
	}
}

static void print_curve(FILE *out, const struct sibyl_device_profile *p)
{
	char a[24];

	print_curves(out, p, SIBYL_H2D, SIBYL_H2D_MAP);
	print_curves(out, p, SIBYL_H2D_MAP, SIBYL_DIR_COUNT);
	if (p->skipped_from)
		fprintf(out, "  sizes from %s skipped: %s\n",
			sibyl_fmt_bytes(a, sizeof(a), p->skipped_from), p->skipped_reason);
}

static void print_models(FILE *out, const struct sibyl_device_profile *p)
{
	char a[24];

	fprintf(out, "\n  transfer model: seconds = latency + bytes / bandwidth "
		"(relative least squares)\n");
	for (int d = 0; d < SIBYL_DIR_COUNT; d++) {
		const struct sibyl_transfer_model *m = &p->model[d];

		if (!m->points) {
			fprintf(out, "  %-7s no points\n", sibyl_transfer_dir_name(d));
			continue;
		}
		fprintf(out, "  %-7s latency %10s  bandwidth %8.3f GB/s  worst error %5.1f%% "
			"over %u sizes\n", sibyl_transfer_dir_name(d),
			fmt_time(a, sizeof(a), m->latency_s, 1), m->bytes_per_s / 1e9,
			100 * m->max_rel_error, m->points);
	}
}

void sibyl_device_profile_print(FILE *out, const struct sibyl_device_profile *p)
{
	fprintf(out, "device %s\n  platform %s (%s), driver %s\n  host %s, %s, sibyl %s, "
		"repeat %u%s\n\n", p->device, p->platform, p->platform_version,
		p->driver_version, p->host, p->date, p->sibyl_version, p->repeat,
		p->quick ? " (--quick)" : "");
	print_latencies(out, p);
	print_curve(out, p);
	print_models(out, p);
}
