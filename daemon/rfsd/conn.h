/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One control connection's bytes: what the peer sent and has not been
 * served yet, and the replies it has not taken, on a non-blocking unix
 * socket.  No policy: server.c decides how much to read, when to serve a
 * line and when to give up on a peer.  A leaf.
 */
#ifndef RFSD_CONN_H
#define RFSD_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

struct rfsd_conn {
	int fd;
	char *in;		/* received, not consumed: [0, in_len) */
	size_t in_len, in_cap;
	char *out;		/* to send: [out_off, out_len) */
	size_t out_off, out_len, out_cap;
	bool eof;		/* the peer sent everything it will */
};

static inline size_t rfsd_conn_out_pending(const struct rfsd_conn *c)
{
	return c->out_len - c->out_off;
}

/* Receive until in holds max bytes, the peer would block, or it has sent
 * everything (eof).  Room for a NUL is kept after the bytes.  *got: some
 * came.  0, or -errno (-ENOMEM: no buffer) when the connection is done
 * for. */
int rfsd_conn_read(struct rfsd_conn *c, size_t max, bool *got);
/* Drop the first n bytes of in. */
void rfsd_conn_consume(struct rfsd_conn *c, size_t n);
/* Bytes the peer sent that are still in the socket, not in in. */
bool rfsd_conn_unread(const struct rfsd_conn *c);

/* s and a '\n' to send: 0 or -ENOMEM. */
int rfsd_conn_queue_line(struct rfsd_conn *c, const char *s);
/* Send what is queued until it is out or the peer would block.  *sent:
 * some went.  0, or -errno when the peer is gone (-EPIPE: it took
 * nothing). */
int rfsd_conn_flush(struct rfsd_conn *c, bool *sent);

/* One reply line straight to fd, if it fits in its buffer (takes r): for
 * peers about to be closed, which get nothing else. */
void rfsd_conn_send_last(int fd, struct json_object *r);
/* Drain what fd has for us, then close it: closing with unread input
 * would make the peer read ECONNRESET after our last reply instead of a
 * clean end of file.  Frees the buffers. */
void rfsd_conn_close(struct rfsd_conn *c);
/* The same for a bare fd that never had buffers. */
void rfsd_conn_close_fd(int fd);

#endif /* RFSD_CONN_H */
