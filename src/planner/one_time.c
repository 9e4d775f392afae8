/* The planner's side of sibyl-plan-one-time (one_time.h). */
#define _GNU_SOURCE
#include "planner/one_time.h"
#include "planner/helper.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The probe's report into *run; 0, or -1 with err set. */
static int read_report(struct sibyl_helper *h, const char *name, double timeout,
		       struct sibyl_one_time_run *run, char *err, size_t errlen)
{
	json_t *msg = NULL;
	enum sibyl_msg_got got = sibyl_msg_next(&h->from, sibyl_mono_ns() + (uint64_t)(timeout * 1e9),
						-1, &msg);
	int status = -1;
	const char *why = NULL;
	double init = -1, first = -1, warm = -1;

	if (got != SIBYL_MSG_ONE)
		return sibyl_seterr(err, errlen, "one-time probe of %s: %s", name,
				    got == SIBYL_MSG_TIMEOUT ? "timed out" : "ended without a report");
	int bad = json_unpack(msg, "{si s?s sF sF sF}", "status", &status, "msg", &why,
			      "init_seconds", &init, "first_run_seconds", &first,
			      "first_sample_seconds", &warm);

	if (!bad && status == 0 && run)
		*run = (struct sibyl_one_time_run){ init, first, warm };
	if (bad || status != 0)
		sibyl_seterr(err, errlen, "one-time probe of %s: %s", name,
			     bad ? "a bad report" : why && *why ? why : "failed");
	json_decref(msg);
	return bad || status != 0 ? -1 : 0;
}

int sibyl_one_time_probe(const char *source, const char *name,
			 const struct sibyl_adapter_config *config, uint64_t metric,
			 double timeout, struct sibyl_one_time_run *run, double *exit_s,
			 char *err, size_t errlen)
{
	char *path = sibyl_run_helper_path("sibyl-plan-one-time", "SIBYL_PLAN_ONE_TIME");
	char numbers[3][32];
	struct sibyl_helper h;

	snprintf(numbers[0], sizeof(numbers[0]), "%" PRIu64, metric);
	snprintf(numbers[1], sizeof(numbers[1]), "%u", config->threads ? config->threads : 1);
	snprintf(numbers[2], sizeof(numbers[2]), "%" PRIu64, config->seed);
	char *argv[] = { path, (char *)source, (char *)name, numbers[0], numbers[1], numbers[2],
			 (char *)(config->platform ? config->platform : ""),
			 (char *)(config->device ? config->device : ""), NULL };

	if (!source)
		argv[1] = "--bare", argv[2] = NULL;
	int rc = sibyl_helper_start(&h, argv, NULL, err, errlen);

	if (rc == 0)
		rc = read_report(&h, source ? name : "a bare process", timeout, run, err, errlen);
	*exit_s = sibyl_helper_stop(&h);
	free(path);
	return rc;
}
