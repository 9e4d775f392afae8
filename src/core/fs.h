/* Small file-system helpers shared by the commands. */
#ifndef SIBYL_CORE_FS_H
#define SIBYL_CORE_FS_H

#include <stdbool.h>
#include <stddef.h>

struct stat;

/* Every reader of a file it did not write itself goes through these two:
 * only a regular file of at most `max` bytes is read, so a FIFO never
 * blocks and /dev/zero is never read.  On failure errno is set (EISDIR,
 * EINVAL for another non-regular file, EFBIG over max, else from the
 * system) and, when why is not NULL, the reason for a message:
 * "not a regular file", "too large (N bytes, at most 16 MiB)", strerror. */
/* An fd open for reading (without blocking), *st filled; -1 on failure. */
int sibyl_open_regular(const char *path, size_t max, struct stat *st, char *why,
		       size_t whylen);
/* The whole file, NUL-terminated (*len excludes the NUL); NULL on failure. */
char *sibyl_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* An output is never replaced without --force, and never when it is not
 * a regular file: sibyl_output_check without inputs. */
int sibyl_refuse_overwrite(const char *path, bool force, char *err, size_t errlen);
/* mkdir -p.  Returns 0 or -1 (errno). */
int sibyl_mkdirs(const char *path, int mode);
/* Remove a directory tree (only regular files and directories). */
int sibyl_remove_tree(const char *path);
/* malloc'd "dir/name". */
char *sibyl_path_join(const char *dir, const char *name);
/* Directory holding the running executable (malloc'd), NULL on failure. */
char *sibyl_self_dir(void);

#endif
