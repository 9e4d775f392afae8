/* The trace directory of `sibyl trace`: made or replaced, then locked. */
#ifndef SIBYL_CLI_TRACE_DIR_H
#define SIBYL_CLI_TRACE_DIR_H

#include <stdbool.h>

/* Where `sibyl trace` records without -o, and what report and export
 * read without a DIR (like perf.data). */
#define SIBYL_DEFAULT_TRACE_DIR "sibyl.data"

/* The trace directory a reading command was given, or the default one
 * when it was given none (argc: its operands).  NULL after a usage error
 * line naming `command`. */
const char *trace_dir_operand(const char *command, int operands, char **argv);

/*
 * Make `dir` ready for a new trace: create it, or, with force, replace
 * the sibyl trace in it (only the trace's own files; anything else in it
 * is left alone, and a directory that is not a sibyl trace is refused
 * unless empty).  It is locked for as long as the returned descriptor is
 * open, so a second `sibyl trace` on it fails, and made private (0700),
 * or 0755 less the umask when shared.  Returns the descriptor, or -1
 * after one error line, having deleted nothing.
 */
int trace_dir_prepare(const char *dir, bool force, bool shared);

#endif
