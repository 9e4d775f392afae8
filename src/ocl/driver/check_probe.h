/*
 * --check's barrier probe (check.h): PoCL runs a group's work-items
 * region by region between barriers, so a barrier that not every
 * work-item reaches crashes the kernel there, or is made uniform, and
 * the real run cannot show it.  The probe runs -i's copy of the kernel
 * with its barriers removed but counted, counters in one row per
 * work-item (run_cfg.barriers), one sample, so each work-item runs its
 * own way, and compares the counts within each work-group.
 *
 * Then, for a kernel that touches __local or __global memory, the race
 * probe: a copy that logs those accesses and the barriers of the first
 * work-groups (run_cfg.races, instrument.h), barriers kept, one sample;
 * its log names data races and uninitialised reads (check.h), and a
 * note says when it was cut short.  Not after a divergent barrier: the
 * epochs mean nothing then.
 */
#ifndef SIBYL_OCL_CHECK_PROBE_H
#define SIBYL_OCL_CHECK_PROBE_H

#include "ocl/driver/compile.h"
#include "ocl/driver/kernel_info.h"
#include "ocl/driver/run.h"

#include <jansson.h>

/* What the probes start from: the kernel's SPIR bitcode bc, compiled
 * again from c with -g for the findings' lines (bc itself when that
 * fails), the file's kernels ks; `source` (--source-counters): the
 * barrier probe counts through the marked source (counting.h), as it
 * does on a device without cl_khr_spir; the race probe then does not
 * run (its log is instrumented IR). */
struct sibyl_check_how {
	const struct sibyl_compile_opts *c;
	const struct sibyl_kernels *ks;
	const void *bc;
	size_t size;
	bool source;
	double timeout_s, build_timeout_s;
};

/* The probes for the run cfg describes (its first sample's seed and
 * sizes): an array of findings,
 * {"kind": "barrier-divergence", "message"} or the race probe's
 * (check.h), or NULL: none, a kernel without barriers nor __local
 * nor __global accesses (not run), no work-group size (no barrier probe), or probes
 * that failed (their notices are dropped: the user's run says what
 * fails; -v says why). */
json_t *sibyl_check_probe(const struct sibyl_run_cfg *cfg, const struct sibyl_check_how *how);

#endif
