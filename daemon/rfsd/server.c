// SPDX-License-Identifier: GPL-2.0
/*
 * The control socket.  One epoll loop serves every peer, so nothing here
 * may block: sockets are non-blocking, each client has an input buffer of
 * at most one request line (RFS_CTL_REQUEST_MAX + '\n') and an output backlog;
 * a client stops being read while it has RFSD_OUT_HIGH bytes of replies
 * it has not taken, or while its request waits for the datapath.  Peers
 * that stall are dropped after RFSD_IDLE_SECS, or RFSD_HELLO_SECS before
 * their first request, and one that has sent part of a line but not its
 * end for RFSD_LINE_SECS; a full table makes room for a newcomer
 * (make_room(), server.h says why), and one uid holds at most
 * RFSD_MAX_PER_UID slots unless it is root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "ctlsock.h"
#include "log.h"
#include "mono.h"
#include "peercred.h"
#include "server.h"

#define RFSD_IN_MAX	(RFS_CTL_REQUEST_MAX + 1)	/* the line and its '\n' */
#define RFSD_OUT_HIGH	(1u << 20)
/* A peer is silent once it has said nothing for this long: a client
 * sends its request right after connect(), but rfsd may accept it in
 * between. */
#define RFSD_SILENT_MS	500

struct rfsd_client {
	struct rfsd_watch w;
	struct rfsd_server *srv;
	struct rfsd_client *next;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	struct rfsd_conn conn;
	bool waiting;		/* its request waits for the datapath */
	bool owns_job;		/* ... or for the job it started */
	bool closing;		/* close once its replies are out */
	bool denied;		/* not root or rfs: refuse its first request */
	bool reader;		/* may only read (peercred.h) */
	bool served;		/* it sent a whole request line */
	long long since_ms;	/* connected (rfs_mono_ms()) */
	long long line_ms;	/* the unfinished line began; 0: none */
	time_t last_active;
};

struct rfsd_server {
	struct rfsd_watch lw;		/* the listening socket */
	struct rfsd_loop *loop;
	struct rfsd_dispatch dispatch;
	struct rfsd_ctlsock file;
	struct rfsd_groups grp;
	struct rfsd_client *clients;
	size_t n_clients;		/* allowed ones: they hold slots */
	size_t n_denied;
	time_t last_warn;
};

static bool warn_ok(struct rfsd_server *s)
{
	time_t now = time(NULL);

	if (now == s->last_warn)
		return false;
	s->last_warn = now;
	return true;
}

void rfsd_server_set_groups(struct rfsd_server *s, const char *read,
			    const char *admin)
{
	rfsd_groups_set(&s->grp, read, admin ?: RFSD_ADMIN_GROUP);
}

int rfsd_server_bind(struct rfsd_server **out, struct rfsd_loop *loop,
		     const struct rfsd_dispatch *dispatch, const char *path,
		     const char *read_group, const char *admin_group,
		     char *err, size_t len)
{
	struct rfsd_server *s;
	int e;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, len, "can't bind control socket '%s': %s", path,
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	s->loop = loop;
	s->dispatch = *dispatch;
	rfsd_server_set_groups(s, read_group ?: RFS_CTL_GROUP, admin_group);
	s->lw.fd = rfsd_ctlsock_bind(&s->file, path,
				     s->grp.have_read ? &s->grp.read : NULL,
				     s->grp.read_name, err, len);
	if (s->lw.fd < 0) {
		e = s->lw.fd;
		free(s);
		return e;
	}
	*out = s;
	return 0;
}

static void server_accept(struct rfsd_watch *w, uint32_t ev);

int rfsd_server_listen(struct rfsd_server *s, char *err, size_t len)
{
	if (listen(s->lw.fd, RFSD_MAX_CLIENTS)) {
		int e = -errno;

		snprintf(err, len, "can't listen on control socket '%s': %s",
			 s->file.path, strerror(-e));
		return e;
	}
	s->lw.fn = server_accept;
	if (rfsd_watch_add(s->loop, &s->lw, EPOLLIN)) {
		int e = -errno;

		snprintf(err, len, "can't watch control socket '%s': %s",
			 s->file.path, strerror(-e));
		return e;
	}
	return 0;
}

static size_t out_pending(const struct rfsd_client *c)
{
	return rfsd_conn_out_pending(&c->conn);
}

static void client_close(struct rfsd_client *c)
{
	struct rfsd_server *s = c->srv;
	struct rfsd_client **pp;

	for (pp = &s->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			if (c->denied)
				s->n_denied--;
			else
				s->n_clients--;
			break;
		}
	}
	if (c->owns_job && s->dispatch.client_gone)
		s->dispatch.client_gone(s->dispatch.ctx, c);
	/* the loop sees the removal: no later event of c is run */
	rfsd_watch_del(s->loop, &c->w);
	rfsd_conn_close(&c->conn);
	free(c);
}

static struct json_object *denied_reply(const struct rfsd_client *c)
{
	return rfsd_reply_err(EACCES,
			      "permission denied: uid %u is not root or in group %s",
			      c->uid, c->srv->grp.read_name);
}

/* Nothing in flight either way: dropping it loses nothing it asked for. */
static bool client_idle(const struct rfsd_client *c)
{
	return !c->waiting && !c->owns_job && !out_pending(c) &&
	       !c->conn.in_len;
}

/*
 * The peer to drop for a newcomer: among the refused ones if denied, else
 * the one connected longest ago without a whole request (it may have sent
 * part of one), else the one idle longest between requests.  A peer with
 * a request in flight or replies to take is never dropped, nor one just
 * connected (RFSD_SILENT_MS) or whose bytes are still unread: accept4()
 * takes a burst of peers before any of them is read, and a request on its
 * way is no silence.  NULL: none.
 */
static struct rfsd_client *pick_victim(struct rfsd_server *s, bool denied,
				       uid_t only)
{
	struct rfsd_client *c, *silent = NULL, *idle = NULL;
	long long now = rfs_mono_ms();

	for (c = s->clients; c; c = c->next) {
		if (c->denied != denied || c->closing ||
		    (only != (uid_t)-1 && c->uid != only) ||
		    now - c->since_ms < RFSD_SILENT_MS ||
		    rfsd_conn_unread(&c->conn))
			continue;
		if (denied || (!c->served && !c->waiting)) {
			if (!silent || c->since_ms <= silent->since_ms)
				silent = c;
		} else if (client_idle(c)) {
			if (!idle || c->last_active <= idle->last_active)
				idle = c;
		}
	}
	return silent ?: idle;
}

/*
 * Room for one more peer (denied: one more refused peer): true, having
 * dropped another if the table was full, or false if the newcomer must be
 * refused.  Root is never refused while a spare slot is left.
 */
static bool make_room(struct rfsd_server *s, uid_t uid, bool denied)
{
	struct rfsd_client *v;

	if (denied ? s->n_denied < RFSD_MAX_DENIED :
		     s->n_clients < RFSD_MAX_CLIENTS)
		return true;
	v = pick_victim(s, denied, (uid_t)-1);
	if (v) {
		if (warn_ok(s))
			pr_warn("control socket full: dropping %s client uid %u (pid %d) for a new one\n",
				denied ? "a refused" : v->served ? "an idle" :
				"a silent", v->uid, v->pid);
		rfsd_conn_send_last(v->conn.fd, denied ? denied_reply(v) :
				    rfsd_reply_err(EAGAIN,
						   "dropped: %u clients already and this one was idle",
						   RFSD_MAX_CLIENTS));
		client_close(v);
		return true;
	}
	return !denied && uid == 0 &&
	       s->n_clients < RFSD_MAX_CLIENTS + RFSD_ROOT_SPARE;
}

/*
 * Room for one more peer of uid within its own share: root has no share,
 * others RFSD_MAX_PER_UID slots, so that one member of the group can't
 * fill the table with requests in flight that no one may drop.  At its
 * share, a silent or idle peer of the same uid makes room, as in
 * make_room().
 */
static bool uid_room(struct rfsd_server *s, uid_t uid)
{
	struct rfsd_client *c, *v;
	size_t n = 0;

	if (uid == 0)
		return true;
	for (c = s->clients; c; c = c->next)
		if (!c->denied && c->uid == uid && !c->closing)
			n++;
	if (n < RFSD_MAX_PER_UID)
		return true;
	v = pick_victim(s, false, uid);
	if (!v)
		return false;
	rfsd_conn_send_last(v->conn.fd,
			    rfsd_reply_err(EAGAIN,
					   "dropped: uid %u has %u connections already and this one was idle",
					   uid, RFSD_MAX_PER_UID));
	client_close(v);
	return true;
}

static void queue_reply(struct rfsd_client *c, struct json_object *reply)
{
	const char *s;

	s = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s || rfsd_conn_queue_line(&c->conn, s)) {
		pr_warn("can't queue reply for uid %u: %s\n", c->uid,
			strerror(ENOMEM));
		c->closing = true;
	}
	json_object_put(reply);
}

/* false: the peer is gone (c is freed) */
static bool client_flush(struct rfsd_client *c)
{
	bool sent;
	int e = rfsd_conn_flush(&c->conn, &sent);

	if (sent)
		c->last_active = time(NULL);
	if (e) {
		pr_debug("control client uid %u left: %s\n", c->uid,
			 e == -EPIPE ? "closed" : strerror(-e));
		client_close(c);
		return false;
	}
	if (!out_pending(c) && c->closing) {
		client_close(c);
		return false;
	}
	return true;
}

static void client_update(struct rfsd_client *c)
{
	uint32_t ev = 0;

	if (!c->closing && !c->conn.eof && !c->waiting &&
	    c->conn.in_len < RFSD_IN_MAX && out_pending(c) < RFSD_OUT_HIGH)
		ev |= EPOLLIN;
	if (out_pending(c))
		ev |= EPOLLOUT;
	if (ev != c->w.events && rfsd_watch_mod(c->srv->loop, &c->w, ev))
		pr_warn("can't watch control client uid %u: %s\n", c->uid,
			strerror(errno));
}

/* Serve the complete lines in the buffer; false: c is gone. */
static bool client_process(struct rfsd_client *c)
{
	const struct rfsd_dispatch *dp = &c->srv->dispatch;
	struct rfsd_conn *in = &c->conn;
	struct json_object *reply;
	enum rfsd_cmd_rc rc;

	/* answered when it speaks: refused at once, a client's write
	 * could fail before it gets to read why */
	if (c->denied && !c->closing && (in->in_len || in->eof)) {
		queue_reply(c, denied_reply(c));
		c->closing = true;
		in->in_len = 0;
	}
	while (!c->closing && !c->waiting && out_pending(c) < RFSD_OUT_HIGH) {
		char *nl = in->in_len ? memchr(in->in, '\n', in->in_len) : NULL;
		size_t len, used;

		if (nl) {
			len = nl - in->in;
			used = len + 1;
		} else if (in->in_len > RFS_CTL_REQUEST_MAX) {
			len = used = RFS_CTL_REQUEST_MAX + 1;
		} else if (in->eof && in->in_len) {
			/* a last request without its '\n': serve it anyway */
			len = used = in->in_len;
		} else {
			break;
		}
		if (len > RFS_CTL_REQUEST_MAX) {
			queue_reply(c, rfsd_reply_err(EMSGSIZE,
					"request too long (max %d bytes)",
					RFS_CTL_REQUEST_MAX));
			c->closing = true;
			in->in_len = 0;
			break;
		}
		in->in[len] = '\0';
		c->served = true;
		pr_debug("request from uid %u: %.200s\n", c->uid, in->in);
		reply = NULL;
		rc = rfsd_request_run_as(dp->cmds, dp->ctx, c,
					 c->reader ? c->srv->grp.deny : NULL,
					 in->in, len, &reply);
		if (rc == RFSD_CMD_WAIT) {
			if (nl)
				*nl = '\n';
			c->waiting = true;
			break;
		}
		rfsd_conn_consume(in, used);
		c->line_ms = 0;
		if (rc == RFSD_CMD_STARTED) {
			c->waiting = c->owns_job = true;
			break;
		}
		queue_reply(c, reply);
	}
	if (in->eof && !in->in_len && !c->waiting)
		c->closing = true;
	/* part of a line is left: its clock runs from its first byte, and
	 * bytes that trickle in later do not reset it */
	if (!in->in_len)
		c->line_ms = 0;
	else if (!c->waiting && !c->line_ms)
		c->line_ms = rfs_mono_ms();
	if (!client_flush(c))
		return false;
	client_update(c);
	return true;
}

/* false: c is gone */
static bool client_read(struct rfsd_client *c)
{
	bool got;
	int e = rfsd_conn_read(&c->conn, RFSD_IN_MAX, &got);

	if (got)
		c->last_active = time(NULL);
	if (e) {
		if (e != -ENOMEM)
			pr_debug("control client uid %u: %s\n", c->uid,
				 strerror(-e));
		client_close(c);
		return false;
	}
	return true;
}

static void client_event(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_client *c = rfsd_container_of(w, struct rfsd_client, w);

	if (ev & (EPOLLERR | EPOLLHUP)) {
		/* closed both ways: nobody would read the replies */
		pr_debug("control client uid %u left\n", c->uid);
		client_close(c);
		return;
	}
	if ((ev & EPOLLOUT) && !client_flush(c))
		return;
	if ((ev & EPOLLIN) && !client_read(c))
		return;
	client_process(c);
}

static void server_accept(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_server *s = rfsd_container_of(w, struct rfsd_server, lw);

	for (;;) {
		struct ucred cr = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
		socklen_t crlen = sizeof(cr);
		struct rfsd_client *c;
		enum rfsd_role role;
		bool denied;
		int fd;

		fd = accept4(s->lw.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			/* out of fds: stop accepting until the next tick, or
			 * the pending connection would wake us forever */
			if (warn_ok(s))
				pr_warn("can't accept control connection: %s\n",
					strerror(errno));
			rfsd_watch_mod(s->loop, &s->lw, 0);
			return;
		}
		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen);
		role = rfsd_peer_role(fd, &cr, &s->grp);
		denied = role == RFSD_ROLE_NONE;
		if (!denied && !uid_room(s, cr.uid)) {
			if (warn_ok(s))
				pr_warn("refusing control connection from uid %u (pid %d): %u from that uid already\n",
					cr.uid, cr.pid, RFSD_MAX_PER_UID);
			rfsd_conn_send_last(fd, rfsd_reply_err(EAGAIN,
						"too many connections from uid %u (max %u); try again",
						cr.uid, RFSD_MAX_PER_UID));
			rfsd_conn_close_fd(fd);
			continue;
		}
		if (!make_room(s, cr.uid, denied)) {
			if (warn_ok(s))
				pr_warn("refusing control connection from uid %u (pid %d): %u clients already\n",
					cr.uid, cr.pid, RFSD_MAX_CLIENTS);
			rfsd_conn_send_last(fd, rfsd_reply_err(EAGAIN,
						"too many clients (max %u); try again",
						RFSD_MAX_CLIENTS));
			rfsd_conn_close_fd(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->w.fd = c->conn.fd = fd;
		c->w.fn = client_event;
		c->srv = s;
		c->uid = cr.uid;
		c->gid = cr.gid;
		c->pid = cr.pid;
		c->denied = denied;
		c->reader = role == RFSD_ROLE_READ;
		c->last_active = time(NULL);
		c->since_ms = rfs_mono_ms();
		if (rfsd_watch_add(s->loop, &c->w, EPOLLIN)) {
			pr_warn("can't watch control client: %s\n", strerror(errno));
			close(fd);
			free(c);
			continue;
		}
		c->next = s->clients;
		s->clients = c;
		if (denied) {
			s->n_denied++;
			if (warn_ok(s))
				pr_warn("refusing control connection from uid %u (pid %d): not root or in group %s\n",
					cr.uid, cr.pid, s->grp.read_name);
			continue;
		}
		s->n_clients++;
		pr_debug("control client uid %u pid %d connected\n", cr.uid,
			 cr.pid);
	}
}

void rfsd_server_reply(struct rfsd_server *s, struct rfsd_client *c,
		       struct json_object *reply)
{
	c->owns_job = c->waiting = false;
	queue_reply(c, reply);
	client_process(c);
}

void rfsd_server_kick(struct rfsd_server *s)
{
	struct rfsd_client *c, *next;

	if (!s)
		return;
	for (c = s->clients; c; c = next) {
		next = c->next;
		if (!c->waiting || c->owns_job)
			continue;
		c->waiting = false;
		client_process(c);
	}
}

void rfsd_server_tick(struct rfsd_server *s, time_t now)
{
	struct rfsd_client *c, *next;

	if (!s)
		return;
	if (s->lw.fn && !s->lw.events)
		rfsd_watch_mod(s->loop, &s->lw, EPOLLIN);
	for (c = s->clients; c; c = next) {
		next = c->next;
		if (c->waiting)
			continue;
		if (c->line_ms && !c->closing &&
		    rfs_mono_ms() - c->line_ms >= RFSD_LINE_SECS * 1000LL) {
			pr_debug("control client uid %u did not finish its request line in %d s; dropped\n",
				 c->uid, RFSD_LINE_SECS);
			rfsd_conn_send_last(c->conn.fd, rfsd_reply_err(ETIMEDOUT,
					    "request line not finished within %d s",
					    RFSD_LINE_SECS));
			client_close(c);
			continue;
		}
		if (!c->served) {
			/* a refused peer too: it had its chance to ask */
			if (rfs_mono_ms() - c->since_ms < RFSD_HELLO_SECS * 1000LL)
				continue;
			pr_debug("control client uid %u sent no request in %d s; dropped\n",
				 c->uid, RFSD_HELLO_SECS);
		} else {
			if (now - c->last_active < RFSD_IDLE_SECS)
				continue;
			pr_debug("control client uid %u idle for %d s; dropped\n",
				 c->uid, RFSD_IDLE_SECS);
		}
		client_close(c);
	}
}

void rfsd_server_close(struct rfsd_server *s)
{
	if (!s)
		return;
	while (s->clients)
		client_close(s->clients);
	if (s->lw.fd >= 0) {
		if (s->lw.fn)
			rfsd_watch_del(s->loop, &s->lw);
		close(s->lw.fd);
	}
	rfsd_ctlsock_unlink(&s->file);
	free(s);
}

uid_t rfsd_client_uid(const struct rfsd_client *c)
{
	return c->uid;
}

pid_t rfsd_client_pid(const struct rfsd_client *c)
{
	return c->pid;
}
