/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Client side of rfsd's control protocol (docs/protocol.md): a unix stream
 * socket carrying one JSON object per line, one reply line per request.
 * Used by rfsctl and by the tests, so it knows nothing of the commands:
 * it moves json_objects and tells transport errors from daemon errors.
 *
 * Every function returns 0 or a negative errno and, on failure, writes a
 * one-line reason into err (len bytes, RFS_CTL_ERR_LEN is plenty):
 *	"can't connect to rfsd at '/run/rfs/rfsd.sock': No such file or
 *	 directory (is rfsd running?)"
 * For a request the daemon refused, rfs_ctl_result() copies the daemon's
 * own message ("attach veth9: no such interface") and returns -errno.
 */
#ifndef RFS_CTL_CLIENT_H
#define RFS_CTL_CLIENT_H

#include <stddef.h>
#include <json-c/json.h>

#include "rfs_ctl_proto.h"

#define RFS_CTL_REPLY_MAX	(1 << 20)	/* ours: many interfaces */
#define RFS_CTL_TIMEOUT_MS	10000		/* per reply */
#define RFS_CTL_ERR_LEN		512

struct rfs_ctl;

/* Connect to the daemon's socket at path (NULL: RFS_CTL_SOCKET_DEFAULT). */
int rfs_ctl_connect(struct rfs_ctl **ctl, const char *path,
		    char *err, size_t len);
void rfs_ctl_close(struct rfs_ctl *ctl);

/* How long rfs_ctl_recv() waits for a whole reply line; < 0: forever.
 * flows replies only after its sampling interval, so add that to it. */
void rfs_ctl_set_timeout(struct rfs_ctl *ctl, int timeout_ms);

/* Called with each line sent ("send") and received ("recv"), without its
 * newline: rfsctl -v prints them. */
typedef void (*rfs_ctl_trace_fn)(const char *dir, const char *line,
				 void *arg);
void rfs_ctl_set_trace(struct rfs_ctl *ctl, rfs_ctl_trace_fn fn, void *arg);

/* Send req as one line.  -EMSGSIZE if it is longer than the daemon takes. */
int rfs_ctl_send(struct rfs_ctl *ctl, struct json_object *req,
		 char *err, size_t len);
/* Send buf[0..n) and a newline, unchecked: lets tests send bad lines. */
int rfs_ctl_send_raw(struct rfs_ctl *ctl, const char *buf, size_t n,
		     char *err, size_t len);
/* Read one reply line (at most RFS_CTL_REPLY_MAX bytes) and parse it into
 * *reply, a JSON object (the caller puts it).  Bytes after the newline are
 * kept for the next call. */
int rfs_ctl_recv(struct rfs_ctl *ctl, struct json_object **reply,
		 char *err, size_t len);
/* One reply line of n bytes (no newline) as rfs_ctl_recv() takes it:
 * one JSON object, blanks after it; anything else is -EPROTO. */
int rfs_ctl_parse_reply(const char *line, size_t n,
			struct json_object **reply, char *err, size_t len);
/* rfs_ctl_send() then rfs_ctl_recv().  If the send fails because rfsd
 * closed the connection, the reply it may have sent first (a refusal) is
 * the result. */
int rfs_ctl_request(struct rfs_ctl *ctl, struct json_object *req,
		    struct json_object **reply, char *err, size_t len);

/*
 * Split a reply.  {"ok": true, "result": R}: 0 and *result = R (borrowed
 * from reply).  {"ok": false, "error": E, "errno": N}: -N with E in err.
 * -EPROTO for anything else.
 */
int rfs_ctl_result(struct json_object *reply, struct json_object **result,
		   char *err, size_t len);


#endif /* RFS_CTL_CLIENT_H */
