/* Small file-system helpers shared by the commands. */
#ifndef SIBYL_CORE_FS_H
#define SIBYL_CORE_FS_H

#include <stdbool.h>
#include <stddef.h>

/* Write `len` bytes to `path` through a temporary file and rename, so an
 * existing file is never left half-written (sibyl_output_write, mode 0666
 * less the umask).  Returns 0 or -1 (errno). */
int sibyl_write_file_atomic(const char *path, const void *data, size_t len);
/* Read a whole file; the buffer is NUL-terminated.  NULL with errno. */
char *sibyl_read_file(const char *path, size_t *len);
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
