// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ctl_client.h"
#include "log.h"

struct rfs_ctl {
	int fd;
	int timeout_ms;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t used;
	/* received bytes: [0, used) of which the reply lines not yet taken */
	char buf[];
};

/*
 * Refused: name the group that may connect, the socket's own (rfsd's
 * socket_group, which need not be rfs).  Commands that change things
 * need more (rfsd's admin_group), which rfsd says when asked.
 */
static void rfs_ctl_hint_group(const char *path, char *hint, size_t len)
{
	struct group *gr;
	struct stat st;

	if (stat(path, &st)) {
		snprintf(hint, len, " (rfsctl needs root or rfsd's socket group)");
		return;
	}
	gr = getgrgid(st.st_gid);
	if (gr)
		snprintf(hint, len, " (rfsctl needs root or group '%s')",
			 gr->gr_name);
	else
		snprintf(hint, len, " (rfsctl needs root or gid %u)",
			 (unsigned int)st.st_gid);
}

int rfs_ctl_connect(struct rfs_ctl **out, const char *path, int timeout_ms,
		    char *err, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char hint[128] = "";
	struct rfs_ctl *ctl;
	int e, r;

	*out = NULL;
	if (!path)
		path = RFS_CTL_SOCKET_DEFAULT;
	if (!*path || strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, len, "can't connect to rfsd at '%s': %s", path,
			 *path ? "socket path too long" : "empty socket path");
		return -EINVAL;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);

	/* room for the longest reply: pages it does not fill stay unused */
	ctl = malloc(sizeof(*ctl) + RFS_CTL_REPLY_MAX + 1);
	if (!ctl) {
		snprintf(err, len, "can't connect to rfsd: out of memory");
		return -ENOMEM;
	}
	*ctl = (struct rfs_ctl){ .timeout_ms = timeout_ms };
	memcpy(ctl->path, path, strlen(path) + 1);
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	do {
		r = ctl->fd < 0 ? -1 :
		    connect(ctl->fd, (struct sockaddr *)&sun, sizeof(sun));
	} while (r < 0 && errno == EINTR);
	if (!r) {
		*out = ctl;
		return 0;
	}
	e = errno;
	/* with what the user can do about it */
	if (e == EACCES || e == EPERM)
		rfs_ctl_hint_group(path, hint, sizeof(hint));
	else if (e == ENOENT || e == ECONNREFUSED)
		snprintf(hint, sizeof(hint), " (is rfsd running?)");
	snprintf(err, len, "can't connect to rfsd at '%s': %s%s", path,
		 strerror(e), hint);
	rfs_ctl_close(ctl);
	return -e;
}

void rfs_ctl_close(struct rfs_ctl *ctl)
{
	if (!ctl)
		return;
	if (ctl->fd >= 0)
		close(ctl->fd);
	free(ctl);
}

/* req as one line; -EMSGSIZE if longer than the daemon takes. */
static int rfs_ctl_send(struct rfs_ctl *ctl, struct json_object *req,
			char *err, size_t len)
{
	/* PLAIN escapes newlines inside strings: the object stays one line */
	const char *s = json_object_to_json_string_ext(req,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = s ? strlen(s) : 0, off = 0;
	ssize_t r = 0;
	char *line;

	if (n > RFS_CTL_REQUEST_MAX) {
		snprintf(err, len, "request too long (%zu bytes, max %d)", n,
			 RFS_CTL_REQUEST_MAX);
		return -EMSGSIZE;
	}
	/* one send() per line, so the daemon never sees a line in pieces
	 * it could take for two */
	line = s ? malloc(n + 1) : NULL;
	if (!line) {
		snprintf(err, len, "can't send request to rfsd: out of memory");
		return -ENOMEM;
	}
	pr_debug("> %s\n", s);
	memcpy(line, s, n);
	line[n++] = '\n';
	while (off < n && r >= 0) {
		/* MSG_NOSIGNAL: a daemon gone away is an error, not SIGPIPE */
		r = send(ctl->fd, line + off, n - off, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			r = 0;
		off += r > 0 ? r : 0;
	}
	r = r < 0 ? -errno : 0;
	free(line);
	if (!r)
		return 0;
	snprintf(err, len, "can't send request to rfsd at '%s': %s",
		 ctl->path, strerror(-r));
	return r;
}

int rfs_ctl_parse_reply(const char *line, size_t n,
			struct json_object **reply, char *err, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	struct json_object *obj;
	const char *why;
	size_t end;

	*reply = NULL;
	if (!tok) {
		snprintf(err, len, "can't parse reply from rfsd: out of memory");
		return -ENOMEM;
	}
	obj = json_tokener_parse_ex(tok, line, n);
	jerr = json_tokener_get_error(tok);
	end = obj ? json_tokener_get_parse_end(tok) : 0;
	while (end < n && (line[end] == ' ' || line[end] == '\t'))
		end++;
	json_tokener_free(tok);
	why = jerr == json_tokener_continue ? "incomplete JSON" :
	      !obj || jerr != json_tokener_success ?
	      json_tokener_error_desc(jerr) :
	      end < n ? "data after the JSON object" :
	      !json_object_is_type(obj, json_type_object) ?
	      "not a JSON object" : NULL;
	if (!why) {
		*reply = obj;
		return 0;
	}
	snprintf(err, len, "can't parse reply from rfsd: %s", why);
	json_object_put(obj);
	return -EPROTO;
}

int rfs_ctl_recv(struct rfs_ctl *ctl, struct json_object **reply,
		 char *err, size_t len)
{
	long long deadline = rfs_mono_ms() + ctl->timeout_ms, left;
	struct pollfd pfd = { .fd = ctl->fd, .events = POLLIN };
	size_t scanned = 0, nl, n;
	ssize_t r;
	char *p;
	int ret;

	*reply = NULL;
	while (!(p = memchr(ctl->buf + scanned, '\n', ctl->used - scanned))) {
		scanned = ctl->used;
		if (ctl->used > RFS_CTL_REPLY_MAX) {
			snprintf(err, len, "reply from rfsd too long (max %d bytes)",
				 RFS_CTL_REPLY_MAX);
			return -EMSGSIZE;
		}
		left = ctl->timeout_ms < 0 ? -1 : deadline - rfs_mono_ms();
		r = poll(&pfd, 1, left < 0 && ctl->timeout_ms >= 0 ? 0 :
			 left > INT_MAX ? INT_MAX : (int)left);
		if (!r) {
			snprintf(err, len, "no reply from rfsd at '%s' within %d ms",
				 ctl->path, ctl->timeout_ms);
			return -ETIMEDOUT;
		}
		if (r > 0)
			r = recv(ctl->fd, ctl->buf + ctl->used,
				 RFS_CTL_REPLY_MAX + 1 - ctl->used, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			r = -errno;
			snprintf(err, len, "can't read reply from rfsd: %s",
				 strerror(-r));
			return r;
		}
		if (r == 0) {
			snprintf(err, len, "rfsd closed the connection %s",
				 ctl->used ? "in the middle of a reply" :
				 "without replying");
			return ctl->used ? -EPROTO : -ECONNRESET;
		}
		ctl->used += r;
	}
	nl = n = p - ctl->buf;
	ctl->buf[nl] = '\0';
	if (n && ctl->buf[n - 1] == '\r')
		ctl->buf[--n] = '\0';
	pr_debug("< %s\n", ctl->buf);
	ret = rfs_ctl_parse_reply(ctl->buf, n, reply, err, len);
	/* drop the line, keep what follows it */
	memmove(ctl->buf, ctl->buf + nl + 1, ctl->used - nl - 1);
	ctl->used -= nl + 1;
	return ret;
}

int rfs_ctl_ask(void *ctl, struct json_object *req,
		struct json_object **result, char *err, size_t len)
{
	struct json_object *reply = NULL, *r = NULL;
	char why[RFS_CTL_ERR_LEN];
	int ret;

	ret = rfs_ctl_send(ctl, req, err, len);
	json_object_put(req);
	/* refused at connect ("too many clients"): the reason is still in
	 * our receive queue, better than "Broken pipe" */
	if ((ret == -EPIPE || ret == -ECONNRESET) &&
	    !rfs_ctl_recv(ctl, &reply, why, sizeof(why)))
		ret = 0;
	else if (!ret)
		ret = rfs_ctl_recv(ctl, &reply, err, len);
	if (!ret)
		ret = rfs_ctl_result(reply, &r, err, len);
	*result = ret ? NULL : json_object_get(r);
	json_object_put(reply);
	return ret;
}

int rfs_ctl_result(struct json_object *reply, struct json_object **result,
		   char *err, size_t len)
{
	struct json_object *ok, *v;
	int e;

	*result = NULL;
	if (!json_object_object_get_ex(reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		snprintf(err, len, "bad reply from rfsd: no \"ok\" member");
		return -EPROTO;
	}
	if (json_object_get_boolean(ok)) {
		if (!json_object_object_get_ex(reply, "result", result) ||
		    !*result) {
			snprintf(err, len, "bad reply from rfsd: no \"result\" member");
			*result = NULL;
			return -EPROTO;
		}
		return 0;
	}

	e = EIO;
	if (json_object_object_get_ex(reply, "errno", &v) &&
	    json_object_is_type(v, json_type_int) &&
	    json_object_get_int(v) > 0)
		e = json_object_get_int(v);
	/* an empty message would leave the user with "Error: " */
	if (json_object_object_get_ex(reply, "error", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    *json_object_get_string(v))
		snprintf(err, len, "%s", json_object_get_string(v));
	else
		snprintf(err, len, "rfsd refused the request: %s", strerror(e));
	return -e;
}
