/*
 * libFuzzer target for the JSON and text parsers of files a user hands
 * to sibyl: performance profiles, device profiles, trace meta.json and
 * wrapper definition files.  The first byte picks the parser, the rest
 * is its input.  Built with clang-14 only (tests/fuzz/CMakeLists.txt).
 */
#include "model/profile.h"
#include "ocl/device/device_profile.h"
#include "trace/internal.h"
#include "wrapgen/defs.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defs parser reports "FILE:LINE: error: ..." on stderr: keep the
 * fuzzer's output readable (libFuzzer and the sanitizers write to fd 2
 * directly, not through this FILE). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	stderr = fopen("/dev/null", "w");
	return 0;
}

/* What a loaded profile promises its users: sorted finite points, pieces
 * with names, and an evaluation that does not crash. */
static void fuzz_profile(const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, 0, NULL);
	char err[512];

	if (!j)
		return;
	struct sibyl_profile *p = sibyl_profile_from_json(j, err, sizeof(err));

	json_decref(j);
	if (!p)
		return;
	for (size_t i = 0; i < p->npoints; i++)
		if (!isfinite(p->points[i].x) || (i && p->points[i].x < p->points[i - 1].x))
			__builtin_trap();
	for (size_t i = 0; i < p->npieces; i++)
		if (!p->pieces[i].name)
			__builtin_trap();
	if (p->npoints)
		(void)sibyl_profile_eval(p, (p->lo + p->hi) / 2);
	sibyl_profile_free(p);
}

static void fuzz_device_profile(const char *text, size_t len)
{
	struct sibyl_device_profile p;
	char err[512];

	if (sibyl_device_profile_parse(text, len, &p, err, sizeof(err)) != 0)
		return;
	for (int d = 0; d < SIBYL_DIR_COUNT; d++)
		if (p.curve[d].count > SIBYL_BW_MAX_POINTS)
			__builtin_trap();
	if (!memchr(p.device, 0, sizeof(p.device)))
		__builtin_trap();	/* strings are bounded and terminated */
}

static void fuzz_meta(const char *text, size_t len)
{
	struct trace_meta_doc doc;
	char err[256];

	meta_parse(text, len, &doc, err, sizeof(err));
	if (!doc.meta.command || !doc.meta.cwd || !doc.meta.hostname)
		__builtin_trap();
	meta_free(&doc);
}

/* wg_defs_parse reads a NUL-terminated text (wg_defs_load refuses NUL
 * bytes first). */
static void fuzz_defs(const char *data, size_t len)
{
	struct wg_defs defs = { 0 };
	char *text;

	if (memchr(data, 0, len))
		return;
	text = strndup(data, len);
	if (wg_defs_parse(text, "fuzz.defs", &defs, NULL, 0) == 0)
		for (size_t i = 0; i < defs.n; i++)
			if (!defs.v[i].lib_glob || !defs.v[i].fn_glob || !defs.v[i].code)
				__builtin_trap();
	wg_defs_free(&defs);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_profile(text, size - 1);
		break;
	case 1:
		fuzz_device_profile(text, size - 1);
		break;
	case 2:
		fuzz_meta(text, size - 1);
		break;
	default:
		fuzz_defs(text, size - 1);
		break;
	}
	return 0;
}
