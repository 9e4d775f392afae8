/* `sibyl kernel -i --json`: the listing as records, no data in keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ocl/driver/summary.h"

#include <stdlib.h>
#include <string.h>

/* The records of `names` (counts 10, 20, ...; bytes 8, 16, ...) as
 * compact JSON text (the caller frees it). */
static char *records(const char *const *names, size_t n)
{
	struct sibyl_instcount items[8];
	struct sibyl_instcounts c = { items, n };

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++)
		items[i] = (struct sibyl_instcount){ (char *)names[i], 10 * (i + 1), 8 * (i + 1) };
	json_t *a = sibyl_instcounts_json(&c);
	char *text = json_dumps(a, JSON_COMPACT);

	json_decref(a);
	return text;
}

static void fields_not_keys(void **state)
{
	(void)state;
	const char *names[] = { "load global (8 bytes)", "store local (16 bytes)",
				"call _Z13get_global_idj()", "br" };
	char *text = records(names, 4);

	assert_string_equal(text,
		"[{\"op\":\"load\",\"space\":\"global\",\"count\":10,\"bytes\":8},"
		"{\"op\":\"store\",\"space\":\"local\",\"count\":20,\"bytes\":16},"
		"{\"op\":\"call\",\"callee\":\"_Z13get_global_idj\",\"count\":30},"
		"{\"op\":\"br\",\"count\":40}]");
	free(text);
}

/* --coarse names, and an address space counts.c could not name. */
static void coarse_and_unknown(void **state)
{
	(void)state;
	const char *names[] = { "load global", "call", "load (unknown) (64 bytes)" };
	char *text = records(names, 3);

	assert_string_equal(text,
		"[{\"op\":\"load\",\"space\":\"global\",\"count\":10,\"bytes\":8},"
		"{\"op\":\"call\",\"count\":20},"
		"{\"op\":\"load\",\"space\":\"(unknown)\",\"count\":30,\"bytes\":24}]");
	free(text);
}

/* Samples that moved different bytes average into one record. */
static void mean_of_samples(void **state)
{
	(void)state;
	json_t *samples = json_pack("[{s:[[s,i,i],[s,i,i]]},{s:[[s,i,i],[s,i,i]]}]",
		"instcounts", "load global (100 bytes)", 25, 100, "ret", 4, 0,
		"instcounts", "load global (300 bytes)", 75, 300, "ret", 4, 0);
	struct sibyl_instcounts mean;

	sibyl_instcounts_mean(samples, &mean);
	json_t *a = sibyl_instcounts_json(&mean);
	char *text = json_dumps(a, JSON_COMPACT);

	assert_string_equal(text, "[{\"op\":\"load\",\"space\":\"global\",\"count\":50,\"bytes\":200},"
				  "{\"op\":\"ret\",\"count\":4}]");
	free(text);
	json_decref(a);
	json_decref(samples);
	sibyl_instcounts_free(&mean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fields_not_keys),
		cmocka_unit_test(coarse_and_unknown),
		cmocka_unit_test(mean_of_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
