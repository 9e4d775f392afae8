/*
 * libFuzzer target for the trace parsers that read untrusted bytes: the
 * first byte picks the parser (events file, meta.json, functions.tsv
 * followed, after a NUL byte, by work_metrics.tsv), the rest is its input.  Built with clang-14 only (tests/fuzz/CMakeLists.txt).
 */
#include "trace/internal.h"

#include <stdint.h>
#include <string.h>

static void fuzz_events(const uint8_t *data, size_t size)
{
	struct sibyl_events_info info;
	char err[256];

	if (sibyl_events_parse(data, size, &info, err, sizeof(err)) == 0 &&
	    info.calls + info.torn + info.skipped + info.counters > info.committed)
		__builtin_trap();	/* every record is counted at most once */
}

static void fuzz_meta(const uint8_t *data, size_t size)
{
	struct trace_meta_doc doc;
	char err[256];

	meta_parse((const char *)data, size, &doc, err, sizeof(err));
	if (!doc.meta.command || strlen(doc.meta.command) > size * 2 + 1)
		__builtin_trap();
	meta_free(&doc);
}

static void fuzz_functions(const uint8_t *data, size_t size)
{
	struct function_table ft = { 0 };
	char err[256];

	const uint8_t *nul = memchr(data, 0, size);
	size_t names = nul ? (size_t)(nul - data) : size;

	if (functions_parse(&ft, (const char *)data, names, err, sizeof(err)) == 0) {
		for (size_t i = 1; i < ft.count; i++)
			if (ft.items[i - 1].id >= ft.items[i].id)
				__builtin_trap();	/* sorted, no duplicates */
		if (nul)
			functions_parse_metrics(&ft, (const char *)nul + 1, size - names - 1, err,
						sizeof(err));
		for (size_t i = 0; i < ft.count; i++)
			if (ft.items[i].work_metric && ft.items[i].work_metric_conflict)
				__builtin_trap();	/* a conflict leaves no metric */
	}
	functions_free(&ft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_events(data + 1, size - 1);
		break;
	case 1:
		fuzz_meta(data + 1, size - 1);
		break;
	default:
		fuzz_functions(data + 1, size - 1);
		break;
	}
	return 0;
}
