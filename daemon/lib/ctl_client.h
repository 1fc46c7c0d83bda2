/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's control protocol (docs/protocol.md) as both ends know it, and
 * its client side: one JSON object per line each way on a unix stream
 * socket.  The client knows nothing of the commands (they are the
 * daemon's and the CLI's tables): it moves json_objects and tells
 * transport errors from the daemon's.  Functions return 0 or -errno with
 * a one-line reason in err ("can't connect to rfsd at '...': ... (is
 * rfsd running?)").
 */
#ifndef RFS_CTL_CLIENT_H
#define RFS_CTL_CLIENT_H

#include <stddef.h>
#include <json-c/json.h>

/* rfsd --socket, socket = in rfsd.conf, rfsctl --socket or $RFS_SOCKET */
#define RFS_CTL_SOCKET_DEFAULT	"/run/rfs/rfsd.sock"
#define RFS_CTL_SOCKET_ENV	"RFS_SOCKET"
/* Who may connect besides root: the socket file's group (mode 0660) */
#define RFS_CTL_GROUP		"rfs"
/* A request line's bytes, '\n' not counted: longer is refused (EMSGSIZE)
 * and the connection closed. */
#define RFS_CTL_REQUEST_MAX	65536

#define RFS_CTL_REPLY_MAX	(1 << 20)	/* ours: many interfaces */
#define RFS_CTL_TIMEOUT_MS	10000		/* per reply */
#define RFS_CTL_ERR_LEN		512

struct rfs_ctl;

/* path NULL: RFS_CTL_SOCKET_DEFAULT.  Each reply is awaited up to
 * timeout_ms (< 0: forever); the lines each way are traced by pr_debug. */
int rfs_ctl_connect(struct rfs_ctl **ctl, const char *path, int timeout_ms,
		    char *err, size_t len);
void rfs_ctl_close(struct rfs_ctl *ctl);

/* One reply line into *reply, a JSON object (the caller puts it). */
int rfs_ctl_recv(struct rfs_ctl *ctl, struct json_object **reply,
		 char *err, size_t len);
/* One reply line of n bytes: one JSON object, blanks after it; else
 * -EPROTO. */
int rfs_ctl_parse_reply(const char *line, size_t n,
			struct json_object **reply, char *err, size_t len);

/* {"ok": true, "result": R}: 0 and *result = R (borrowed).  {"ok": false,
 * "error": E, "errno": N}: -N with E in err.  Else -EPROTO. */
int rfs_ctl_result(struct json_object *reply, struct json_object **result,
		   char *err, size_t len);

/* Send req (consumed) on ctl (a struct rfs_ctl: an rfs_prom_call_fn) and
 * take the result of its reply (the caller puts it).  A send refused
 * because rfsd closed the connection gives the refusal it sent first. */
int rfs_ctl_ask(void *ctl, struct json_object *req,
		struct json_object **result, char *err, size_t len);

#endif /* RFS_CTL_CLIENT_H */
