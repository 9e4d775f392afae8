/*
 * Messages between sibyl and its helper programs: JSON objects, one per
 * line, on a pipe (the protocol core/run.h describes).  A reader waits
 * with a deadline and, optionally, a wake-up descriptor that a signal
 * handler writes to, so "stop" never waits for a slow helper.
 */
#ifndef SIBYL_CORE_MESSAGE_H
#define SIBYL_CORE_MESSAGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Send msg as one line.  0, or -1 with errno (EPIPE: the reader is gone). */
int sibyl_msg_send(int fd, const json_t *msg);

struct sibyl_msg_reader {
	int fd;
	char *buf;
	size_t len, cap;
};

enum sibyl_msg_got {
	SIBYL_MSG_ONE,		/* *msg is the next message (the caller's reference) */
	SIBYL_MSG_EOF,		/* the writer closed the pipe */
	SIBYL_MSG_TIMEOUT,	/* the deadline passed first */
	SIBYL_MSG_WOKEN,	/* wake_fd became readable first */
	SIBYL_MSG_ERROR,	/* read failed: errno */
};

void sibyl_msg_reader_init(struct sibyl_msg_reader *r, int fd);
void sibyl_msg_reader_free(struct sibyl_msg_reader *r);
/* The next message, waiting until deadline_ns (sibyl_mono_ns; 0: no
 * deadline) or until wake_fd (-1: none) is readable.  A line that is not
 * a JSON object is skipped; an unfinished last line at EOF too. */
enum sibyl_msg_got sibyl_msg_next(struct sibyl_msg_reader *r, uint64_t deadline_ns, int wake_fd,
				  json_t **msg);

#endif
