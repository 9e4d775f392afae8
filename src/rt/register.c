/*
 * Function names.  Ids are computed when the wrapper is generated, so the
 * hot path never looks anything up; each wrapper library announces its
 * (id, library, name) triples once per process image by appending lines
 * to functions.tsv.  Lines may repeat across images; readers dedupe.
 */
#include "rt/internal.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

RT_EXPORT void sibyl_rt_register(const char *library, const char *const *names,
				 const uint32_t *ids, unsigned count)
{
	struct sibyl_rt_thread *t = sibyl_rt_self();
	char path[PATH_MAX], line[1024];

	if (!rt_proc.enabled || t->in_runtime)
		return;
	t->in_runtime = 1;
	size_t n = rt_strlcpy(path, rt_proc.dir, sizeof(path));

	rt_append(path, n, sizeof(path), "/functions.tsv");
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	for (unsigned i = 0; fd >= 0 && i < count; i++) {
		size_t len = rt_u32_hex(line, ids[i]);

		len = rt_append(line, len, sizeof(line), "\t");
		len = rt_append(line, len, sizeof(line), library);
		len = rt_append(line, len, sizeof(line), "\t");
		len = rt_append(line, len, sizeof(line), names[i]);
		len = rt_append(line, len, sizeof(line), "\n");
		/* One write per line: O_APPEND keeps concurrent writers' lines whole. */
		if (write(fd, line, len) != (ssize_t)len)
			break;
	}
	if (fd >= 0)
		close(fd);
	t->in_runtime = 0;
}
