/*
 * What a command interrupted by SIGINT, SIGTERM or SIGHUP must not leave
 * behind: its helper processes (killed first, so that none keeps
 * spinning on a hung kernel or writes into a directory being removed),
 * the temporaries of outputs in progress (core/output.h) and its private
 * temporary directories (removed whole).  The handler is installed only
 * over signals the command left at their default (a command with a
 * handler of its own ends through its own cleanup path); it does its
 * work with async-signal-safe calls only, then dies of the signal.
 * Tables are small and fixed: what does not fit is not tracked.
 */
#ifndef SIBYL_CORE_CLEANUP_H
#define SIBYL_CORE_CLEANUP_H

#include <stdbool.h>
#include <sys/types.h>

/* Track (add) or forget a path; the string must live until forgotten. */
void sibyl_cleanup_file(const char *path, bool add);
void sibyl_cleanup_dir(const char *path, bool add);
/* A child to kill with SIGKILL (its process group when group is set). */
void sibyl_cleanup_child(pid_t pid, bool group, bool add);

/* Remove a tracked directory's tree now and forget it. */
void sibyl_cleanup_remove_dir(const char *path);

#endif
