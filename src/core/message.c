/* JSON lines on a pipe (core/message.h). */
#define _GNU_SOURCE
#include "core/message.h"
#include "core/alloc.h"
#include "core/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sibyl_msg_send(int fd, const json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t len, done = 0;
	int r = 0;

	if (!text)
		return errno = ENOMEM, -1;
	len = strlen(text);
	text[len++] = '\n';	/* over the NUL: the line goes out in one write */
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = -1;
			break;
		}
		done += (size_t)n;
	}
	free(text);
	return r;
}

void sibyl_msg_reader_init(struct sibyl_msg_reader *r, int fd)
{
	*r = (struct sibyl_msg_reader){ fd, sibyl_xmalloc(4096), 0, 4096 };
}

void sibyl_msg_reader_free(struct sibyl_msg_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* The first complete line that is a JSON object, removed from the buffer. */
static json_t *take_message(struct sibyl_msg_reader *r)
{
	char *nl;

	while ((nl = memchr(r->buf, '\n', r->len))) {
		*nl = '\0';
		json_t *msg = json_loads(r->buf, 0, NULL);
		size_t used = (size_t)(nl + 1 - r->buf);

		r->len -= used;
		memmove(r->buf, nl + 1, r->len);
		if (json_is_object(msg))
			return msg;
		json_decref(msg);
	}
	return NULL;
}

/* Wait for input: ONE when there is some to read. */
static enum sibyl_msg_got wait_input(struct sibyl_msg_reader *r, uint64_t deadline_ns, int wake_fd)
{
	struct pollfd p[2] = { { r->fd, POLLIN, 0 }, { wake_fd, POLLIN, 0 } };

	if (!deadline_ns && wake_fd < 0)
		return SIBYL_MSG_ONE;	/* nothing else to wait for: read() waits */
	for (;;) {
		uint64_t now = sibyl_mono_ns();

		if (deadline_ns && now >= deadline_ns)
			return SIBYL_MSG_TIMEOUT;
		int ms = deadline_ns ? (int)((deadline_ns - now + 999999) / 1000000) : -1;
		int n = poll(p, 2, ms);

		if (n < 0 && errno != EINTR)
			return SIBYL_MSG_ERROR;
		if (n > 0 && p[1].revents)
			return SIBYL_MSG_WOKEN;
		if (n > 0)
			return SIBYL_MSG_ONE;
	}
}

enum sibyl_msg_got sibyl_msg_next(struct sibyl_msg_reader *r, uint64_t deadline_ns, int wake_fd,
				  json_t **msg)
{
	while (!(*msg = take_message(r))) {
		enum sibyl_msg_got got = wait_input(r, deadline_ns, wake_fd);

		if (got != SIBYL_MSG_ONE)
			return got;
		if (r->cap - r->len < 4096)
			r->buf = sibyl_xreallocarray(r->buf, r->cap *= 2, 1);
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return SIBYL_MSG_ERROR;
		if (n == 0)
			return SIBYL_MSG_EOF;
		r->len += (size_t)n;
	}
	return SIBYL_MSG_ONE;
}
