// SPDX-License-Identifier: GPL-2.0
/* A control connection's buffers; see conn.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"

int rfsd_conn_read(struct rfsd_conn *c, size_t max, bool *got)
{
	*got = false;
	while (!c->eof && c->in_len < max) {
		size_t room;
		ssize_t n;

		if (c->in_len + 1 >= c->in_cap) {
			/* one spare byte for the NUL after the last line */
			size_t cap = c->in_cap ? c->in_cap * 2 : 4096;
			char *p;

			if (cap > max + 1)
				cap = max + 1;
			p = realloc(c->in, cap);
			if (!p)
				return -ENOMEM;
			c->in = p;
			c->in_cap = cap;
		}
		room = c->in_cap - 1 - c->in_len;
		n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += n;
			*got = true;
			continue;
		}
		if (!n) {
			c->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		return -errno;
	}
	return 0;
}

void rfsd_conn_consume(struct rfsd_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

bool rfsd_conn_unread(const struct rfsd_conn *c)
{
	int n = 0;

	return !ioctl(c->fd, FIONREAD, &n) && n > 0;
}

static int queue_out(struct rfsd_conn *c, const char *buf, size_t n)
{
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *p;

		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return -ENOMEM;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, buf, n);
	c->out_len += n;
	return 0;
}

int rfsd_conn_queue_line(struct rfsd_conn *c, const char *s)
{
	return queue_out(c, s, strlen(s)) ?: queue_out(c, "\n", 1);
}

int rfsd_conn_flush(struct rfsd_conn *c, bool *sent)
{
	*sent = false;
	while (rfsd_conn_out_pending(c)) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 rfsd_conn_out_pending(c),
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		c->out_off += n;
		*sent = true;
	}
	c->out_off = c->out_len = 0;
	return 0;
}

void rfsd_conn_send_last(int fd, struct json_object *r)
{
	const char *s = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN);
	char line[640];
	int n = snprintf(line, sizeof(line), "%s\n", s);

	if (n > 0 && (size_t)n < sizeof(line) &&
	    send(fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		pr_debug("can't send refusal: %s\n", strerror(errno));
	json_object_put(r);
}

void rfsd_conn_close_fd(int fd)
{
	char buf[4096];
	int i;

	for (i = 0; i < 64; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
	close(fd);
}

void rfsd_conn_close(struct rfsd_conn *c)
{
	rfsd_conn_close_fd(c->fd);
	c->fd = -1;
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
	c->in_len = c->in_cap = c->out_off = c->out_len = c->out_cap = 0;
}
