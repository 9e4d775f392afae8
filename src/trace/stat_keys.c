/*
 * The figures of a function's summary by name: what `report --sort`
 * orders by and what `report --columns` shows, one table for both so
 * that every column can be sorted on.
 */
#include "trace/internal.h"

#include <math.h>
#include <string.h>

static const struct trace_key keys[SIBYL_SORT_COUNTER] = {
	[SIBYL_SORT_TOTAL] = { "total", "Total", KEY_TIME },
	[SIBYL_SORT_CALLS] = { "calls", "Calls", KEY_COUNT },
	[SIBYL_SORT_MEAN] = { "mean", "Mean", KEY_TIME },
	[SIBYL_SORT_NAME] = { "name", "Function", KEY_TEXT },
	[SIBYL_SORT_SELF] = { "self", "Self", KEY_TIME },
	[SIBYL_SORT_MEDIAN] = { "median", "Median", KEY_TIME },
	[SIBYL_SORT_P90] = { "p90", "P90", KEY_TIME },
	[SIBYL_SORT_P99] = { "p99", "P99", KEY_TIME },
	[SIBYL_SORT_STDDEV] = { "stddev", "Stddev", KEY_TIME },
	[SIBYL_SORT_MIN] = { "min", "Min", KEY_TIME },
	[SIBYL_SORT_MAX] = { "max", "Max", KEY_TIME },
	[SIBYL_SORT_SHARE] = { "share", "Share%", KEY_PCT },
	[SIBYL_SORT_IN] = { "in", "In", KEY_BYTES },
	[SIBYL_SORT_OUT] = { "out", "Out", KEY_BYTES },
	[SIBYL_SORT_WORK] = { "work", "Work", KEY_NUMBER },
	[SIBYL_SORT_BYTES_RATE] = { "bytes/s", "Bytes/s", KEY_BYTE_RATE },
	[SIBYL_SORT_WORK_RATE] = { "work/s", "Work/s", KEY_RATE },
	[SIBYL_SORT_LIBRARY] = { "library", "Library", KEY_TEXT },
};

static const struct trace_key counter_keys[SIBYL_CNT_MAX] = {
	{ "task-clock", "TaskClock", KEY_TIME },
	{ "page-faults", "Faults", KEY_NUMBER },
	{ "context-switches", "CtxSw", KEY_NUMBER },
	{ "cpu-migrations", "Migr", KEY_NUMBER },
	{ "cycles", "Cycles", KEY_NUMBER },
	{ "instructions", "Instr", KEY_NUMBER },
};

const char *sibyl_counter_name(int counter)
{
	return counter >= 0 && counter < SIBYL_CNT_MAX ? counter_keys[counter].name : "?";
}

const struct trace_key *trace_key(int key)
{
	if (key >= 0 && key < SIBYL_SORT_COUNTER)
		return &keys[key];
	if (key >= SIBYL_SORT_COUNTER && key < SIBYL_SORT_KEYS)
		return &counter_keys[key - SIBYL_SORT_COUNTER];
	return NULL;
}

int sibyl_sort_key_parse(const char *name)
{
	for (int k = 0; k < SIBYL_SORT_KEYS; k++)
		if (!strcmp(trace_key(k)->name, name))
			return k;
	return -1;
}

const char *sibyl_sort_key_name(int key)
{
	const struct trace_key *k = trace_key(key);

	return k ? k->name : "?";
}

static double counter_mean(const struct sibyl_func_stats *f, int i, bool *present)
{
	*present = f->counter_calls[i] > 0;
	return *present ? (double)f->counters[i] / (double)f->counter_calls[i] : NAN;
}

double trace_key_value(const struct sibyl_func_stats *f, int key, bool *present)
{
	*present = true;
	if (key >= SIBYL_SORT_COUNTER)
		return counter_mean(f, key - SIBYL_SORT_COUNTER, present);
	switch (key) {
	case SIBYL_SORT_TOTAL: return (double)f->total_ns;
	case SIBYL_SORT_CALLS: return (double)f->calls;
	case SIBYL_SORT_MEAN: return f->mean_ns;
	case SIBYL_SORT_SELF: return (double)f->self_ns;
	case SIBYL_SORT_MEDIAN: return f->median_ns;
	case SIBYL_SORT_P90: return f->p90_ns;
	case SIBYL_SORT_P99: return f->p99_ns;
	case SIBYL_SORT_STDDEV: return f->stddev_ns;
	case SIBYL_SORT_MIN: return (double)f->min_ns;
	case SIBYL_SORT_MAX: return (double)f->max_ns;
	case SIBYL_SORT_SHARE: return f->share_pct;
	case SIBYL_SORT_IN: return (double)f->in_bytes;
	case SIBYL_SORT_OUT: return (double)f->out_bytes;
	case SIBYL_SORT_WORK: return f->work;
	case SIBYL_SORT_BYTES_RATE: *present = !isnan(f->bytes_per_s); return f->bytes_per_s;
	case SIBYL_SORT_WORK_RATE: *present = !isnan(f->work_per_s); return f->work_per_s;
	}
	*present = false;
	return NAN;
}
