/* What `sibyl plan` prints: the adapters, a session's result, a profile. */
#ifndef SIBYL_PLANNER_REPORT_H
#define SIBYL_PLANNER_REPORT_H

#include "model/profile.h"
#include "planner/loader.h"
#include "planner/session.h"

#include <stdbool.h>
#include <stdio.h>

/* A table, or a JSON array: name, range, kind, description, work metric,
 * parameters, and whether an evaluation draws random parameters. */
void sibyl_plan_print_adapters(FILE *f, const struct sibyl_adapter_list *l, bool json);
/* The figures of planning, and of the evaluation when there was one
 * (docs/plan.md); as text, or as one JSON object. */
void sibyl_plan_print_result(FILE *f, const struct sibyl_plan_session *s, bool json);
/* A profile as text: what it is of, its range and status, its points,
 * segments and (an envelope's) pieces. */
void sibyl_plan_print_profile(FILE *f, const struct sibyl_profile *p);

#endif
