/*
 * The one way a command writes an output file: into a fresh temporary
 * beside it (created O_EXCL|O_NOFOLLOW, so a planted file or symbolic
 * link is never written through), renamed over the target only when
 * complete, and removed if SIGINT, SIGTERM or SIGHUP ends the command
 * first.  Only a regular file is ever replaced, and never one of the
 * command's own inputs.
 */
#ifndef SIBYL_CORE_OUTPUT_H
#define SIBYL_CORE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sibyl_output {
	char *path;	/* the target */
	char *tmp;	/* the temporary beside it (NULL when done) */
	int fd;		/* open on tmp for writing; the caller may close it */
};

/* 0 when `path` may be written: it does not exist, or it is a regular
 * file, force is set and it is not (nor lies inside) one of `inputs`
 * (NULL-terminated paths the command reads; may be NULL).  Else -1 with
 * "PATH: <why>" in err. */
int sibyl_output_check(const char *path, bool force, const char *const *inputs,
		       char *err, size_t errlen);
/* Create the temporary for `path` with `mode` (less the umask).  0 or -1
 * (errno). */
int sibyl_output_open(struct sibyl_output *o, const char *path, mode_t mode);
/* Close fd if still open and rename the temporary over the target, unless
 * the target has meanwhile become something other than a regular file
 * (EEXIST).  On failure the temporary is removed.  0 or -1 (errno). */
int sibyl_output_commit(struct sibyl_output *o);
/* Remove the temporary (failure paths). */
void sibyl_output_discard(struct sibyl_output *o);
/* sibyl_output_open + write + commit.  0 or -1 (errno). */
int sibyl_output_write(const char *path, const void *data, size_t len, mode_t mode);

/* The mode for files made in `dir`: its read and write permission bits
 * (0600 in a 0700 directory, 0644 in a 0755 one); 0600 if unknown. */
mode_t sibyl_dir_file_mode(const char *dir);

/* Where temporary files go: $TMPDIR when it is an absolute path, else
 * /tmp.  Every temporary file or directory of sibyl's is under it. */
const char *sibyl_tmpdir(void);

/* A new directory only the user can enter (mkdtemp, 0700) under
 * sibyl_tmpdir(), named PREFIX-XXXXXX; malloc'd, NULL (errno). */
char *sibyl_private_tmpdir(const char *prefix);

#endif
