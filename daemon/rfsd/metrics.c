// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics over HTTP; see metrics.h.  MHD in "external polling" mode with
 * epoll (MHD_USE_EPOLL, no MHD_USE_INTERNAL_POLLING_THREAD): MHD's own
 * epoll fd sits in rfsd's epoll set, and MHD_get_timeout() arms a timerfd
 * so that MHD_run() also runs when MHD has work without fd activity
 * (timeouts, a resumed connection), as its manual requires.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <microhttpd.h>

#include "ctl_client.h"
#include "log.h"
#include "server.h"
#include "parse.h"
#include "rfs_prom.h"
#include "server.h"

/* A connection MHD accepted, until it closes: its deadline. */
struct rfsd_mconn {
	struct rfsd_mconn *next, **pprev;
	int fd;
	long long until_ms;	/* rfs_mono_ms() */
	bool cut;		/* shut down: MHD closes it next */
};

struct rfsd_metrics {
	struct MHD_Daemon *mhd;
	struct rfsd_mconn *conns;
	/* the last exposition, and when it was gathered */
	char *snap;
	size_t snap_len;
	long long snap_ms;
	struct rfsd_loop *loop;
	const struct rfsd_dispatch *dispatch;
	struct rfsd_watch ev;		/* MHD's epoll fd */
	struct rfsd_watch tmr;		/* MHD's next timeout */
	char addr[64];
};

/* ---- gathering: the control requests, run in-process ---- */

/* rfs_prom_call_fn: req, which rfsd built itself, straight to its handler,
 * and the reply read as rfsctl reads it. */
static int run_request(void *ctx, struct json_object *req,
		       struct json_object **result, char *err, size_t len)
{
	const struct rfsd_dispatch *d = ctx;
	struct json_object *reply = NULL, *r;
	enum rfsd_cmd_rc rc;
	int e;

	*result = NULL;
	rc = rfsd_request_call(d->cmds, d->ctx, req, &reply);
	if (rc != RFSD_CMD_REPLY) {	/* only flows waits or starts a job */
		snprintf(err, len, "'%s' did not answer at once",
			 json_object_to_json_string(req));
		json_object_put(req);
		return -EBUSY;
	}
	json_object_put(req);
	e = rfs_ctl_result(reply, &r, err, len);
	if (!e)
		*result = json_object_get(r);
	json_object_put(reply);
	return e;
}

/* body as mode says MHD may take it (a snapshot is copied: it outlives
 * this response or not, as the next scrape decides) */
static enum MHD_Result respond(struct MHD_Connection *conn,
			       unsigned int code, const char *type,
			       const char *body, size_t len,
			       enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn,
				    unsigned int code, const char *text)
{
	return respond(conn, code, "text/plain; charset=utf-8", text,
		       strlen(text), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result respond_copy(struct MHD_Connection *conn,
				    const char *body, size_t len)
{
	return respond(conn, MHD_HTTP_OK, RFS_PROM_CONTENT_TYPE, body, len,
		       MHD_RESPMEM_MUST_COPY);
}

static enum MHD_Result serve_metrics(struct rfsd_metrics *m,
				     struct MHD_Connection *conn)
{
	struct json_object *snap;
	char err[RFS_CTL_ERR_LEN], *buf, *msg;
	long long now = rfs_mono_ms();
	size_t len;
	int e;

	/* a scrape right after another gets the same text: what a scraper
	 * (or many) can make rfsd do is one snapshot a second */
	if (m->snap && now - m->snap_ms < RFSD_METRICS_SNAP_MS)
		return respond_copy(conn, m->snap, m->snap_len);
	e = rfs_prom_collect(run_request, (void *)m->dispatch, &snap, err,
			     sizeof(err));
	if (!e) {
		e = rfs_prom_format_buf(snap, &buf, &len);
		if (e)
			snprintf(err, sizeof(err), "%s", strerror(-e));
		json_object_put(snap);
	}
	if (!e) {
		pr_debug("metrics: gathered a snapshot\n");
		free(m->snap);
		m->snap = buf;
		m->snap_len = len;
		m->snap_ms = now;
		return respond_copy(conn, buf, len);
	}
	pr_warn("can't serve metrics on '%s': %s\n", m->addr, err);
	if (asprintf(&msg, "can't gather the metrics: %s\n", err) < 0)
		return MHD_NO;
	return respond(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		       "text/plain; charset=utf-8", msg, strlen(msg),
		       MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req_ctx)
{
	struct rfsd_metrics *m = cls;
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_CONTENT_LENGTH);

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "only GET and HEAD\n");
	/* a GET with a body: refuse rather than read it.  MHD calls first
	 * with the headers alone (*upload_len is 0), and the answer is
	 * given then: they are what says a body follows. */
	if ((cl && strtoull(cl, NULL, 10)) ||
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return respond_text(conn, MHD_HTTP_BAD_REQUEST,
				    "no request body expected\n");
	if (!strcmp(url, "/"))
		return respond_text(conn, MHD_HTTP_OK,
				    "rfsd: Prometheus metrics at /metrics\n");
	if (strcmp(url, "/metrics"))
		return respond_text(conn, MHD_HTTP_NOT_FOUND,
				    "not found; the metrics are at /metrics\n");
	return serve_metrics(m, conn);
}

/* ---- the event loop side ---- */

/* MHD_OPTION_NOTIFY_CONNECTION: a connection is accepted (its deadline
 * starts) or closed. */
static void on_conn(void *cls, struct MHD_Connection *conn, void **ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct rfsd_metrics *m = cls;
	struct rfsd_mconn *c = *ctx;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;		/* it still has MHD's idle timeout */
		ci = MHD_get_connection_info(conn,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = ci ? ci->connect_fd : -1;
		c->until_ms = rfs_mono_ms() + RFSD_METRICS_DEADLINE * 1000LL;
		c->next = m->conns;
		c->pprev = &m->conns;
		if (m->conns)
			m->conns->pprev = &c->next;
		m->conns = c;
		*ctx = c;
	} else if (c) {
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
		free(c);
		*ctx = NULL;
	}
}

/* MHD_OPTION_NOTIFY_COMPLETED: a request was answered; a kept-alive
 * connection has the whole deadline again for its next one (the idle
 * timeout bounds the wait between them). */
static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **req_ctx, enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct rfsd_mconn *c;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = ci ? ci->socket_context : NULL;
	if (c && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		c->until_ms = rfs_mono_ms() + RFSD_METRICS_DEADLINE * 1000LL;
}

/*
 * Cut the connections past their deadline; the next deadline, or -1.
 * MHD has no call to close one of its connections from outside, so shut
 * its socket down: MHD sees the end of it at its next read or write, and
 * closes and frees it itself (on_conn() then forgets it).  The fd stays
 * MHD's, open until then, so it can't be reused under us.
 */
static long long cut_late(struct rfsd_metrics *m)
{
	long long now = rfs_mono_ms(), next = -1;
	struct rfsd_mconn *c;

	for (c = m->conns; c; c = c->next) {
		if (c->cut || c->fd < 0)
			continue;
		if (now >= c->until_ms) {
			pr_debug("metrics: a connection ran past %d s; cut\n",
				 RFSD_METRICS_DEADLINE);
			shutdown(c->fd, SHUT_RDWR);
			c->cut = true;
		} else if (next < 0 || c->until_ms < next) {
			next = c->until_ms;
		}
	}
	return next < 0 ? -1 : next - now;
}

static void arm_timer(struct rfsd_metrics *m)
{
	struct itimerspec its = {};
	MHD_UNSIGNED_LONG_LONG ms;
	long long late = cut_late(m);
	bool have = MHD_get_timeout(m->mhd, &ms) == MHD_YES;

	if (late >= 0 && (!have || (MHD_UNSIGNED_LONG_LONG)late < ms)) {
		ms = late;
		have = true;
	}
	if (have) {
		if (!ms)
			ms = 1;		/* now: a zero it_value disarms */
		its.it_value.tv_sec = ms / 1000;
		its.it_value.tv_nsec = (ms % 1000) * 1000000;
	}
	if (timerfd_settime(m->tmr.fd, 0, &its, NULL))
		pr_warn("can't arm the metrics timer: %s\n", strerror(errno));
}

static void run(struct rfsd_metrics *m)
{
	MHD_run(m->mhd);
	arm_timer(m);
}

static void on_mhd(struct rfsd_watch *w, uint32_t events)
{
	run(rfsd_container_of(w, struct rfsd_metrics, ev));
}

static void on_timer(struct rfsd_watch *w, uint32_t events)
{
	struct rfsd_metrics *m = rfsd_container_of(w, struct rfsd_metrics, tmr);
	uint64_t n;

	if (read(w->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		pr_debug("can't read the metrics timer: %s\n", strerror(errno));
	run(m);
}

/* MHD's own messages (a peer that broke the protocol, a failed accept):
 * debug, they are the peer's business; startup errors reach err. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	pr_debug("metrics: %s\n", buf);
}

const char *rfsd_metrics_addr(const struct rfsd_metrics *m)
{
	return m ? m->addr : NULL;
}

/* What fd listens on, as metrics_listen would name it. */
static int addr_of(int fd, struct sockaddr_storage *ss, char *buf, size_t len)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;
	socklen_t sl = sizeof(*ss);
	char a[INET6_ADDRSTRLEN];

	if (getsockname(fd, (struct sockaddr *)ss, &sl))
		return -errno;
	if (ss->ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", inet_ntop(AF_INET6, &s6->sin6_addr,
			 a, sizeof(a)), ntohs(s6->sin6_port));
	else
		snprintf(buf, len, "%s:%u", inet_ntop(AF_INET, &s4->sin_addr,
			 a, sizeof(a)), ntohs(s4->sin_port));
	return 0;
}

int rfsd_metrics_open(struct rfsd_metrics **mp, struct rfsd_loop *loop,
		      const struct rfsd_dispatch *dispatch, const char *addr,
		      int fd, char *err, size_t len)
{
	unsigned int flags = MHD_USE_EPOLL |
			     MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	struct MHD_OptionItem where[] = {
		{ MHD_OPTION_SOCK_ADDR, 0, &ss }, { MHD_OPTION_END, 0, NULL },
	};
	char name[64];
	struct rfsd_metrics *m;
	socklen_t sl;
	int e;

	*mp = NULL;
	if (!addr) {
		e = addr_of(fd, &ss, name, sizeof(name));
		if (e) {
			snprintf(err, len, "can't serve metrics on the socket systemd passed: %s",
				 strerror(-e));
			return e;
		}
		addr = name;
		where[0] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET,
						    fd, NULL };
	} else if (rfs_parse_hostport(addr, &ss, &sl)) {
		snprintf(err, len, "can't serve metrics on '%s': not IPV4:PORT or [IPV6]:PORT",
			 addr);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, len, "can't serve metrics on '%s': %s", addr,
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	m->loop = loop;
	m->dispatch = dispatch;
	m->ev.fd = m->tmr.fd = -1;
	snprintf(m->addr, sizeof(m->addr), "%s", addr);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* a passed socket: its unit's IPAddressAllow= says who reaches it */
	if (addr != name && !rfs_addr_loopback(&ss))
		pr_warn("WARNING: metrics_listen '%s' is not a loopback address: /metrics is served, without authentication, to whoever reaches it there\n",
			addr);
	/* MHD does not say why a start failed: errno is what socket(), bind() or
	 * listen() left */
	errno = 0;
	m->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, m,
				  /* first, or MHD logs the rest itself */
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_ARRAY, where,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)RFSD_METRICS_MAX_CONNS,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)RFSD_METRICS_TIMEOUT,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)RFSD_METRICS_PER_IP,
				  MHD_OPTION_NOTIFY_CONNECTION, on_conn, m,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, m,
				  MHD_OPTION_END);
	if (!m->mhd) {
		e = errno ? -errno : -EIO;
		snprintf(err, len, "can't serve metrics on '%s': %s", addr,
			 strerror(-e));
		goto fail;
	}
	info = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	m->ev.fd = info ? info->epoll_fd : -1;
	m->ev.fn = on_mhd;
	m->tmr.fn = on_timer;
	m->tmr.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (m->ev.fd < 0 || m->tmr.fd < 0) {
		e = m->tmr.fd < 0 ? -errno : -EIO;
		snprintf(err, len, "can't serve metrics on '%s': %s", addr,
			 m->ev.fd < 0 ? "no epoll fd from libmicrohttpd" :
			 strerror(-e));
		goto fail;
	}
	e = rfsd_watch_add(loop, &m->ev, EPOLLIN);
	if (!e) {
		e = rfsd_watch_add(loop, &m->tmr, EPOLLIN);
		if (e)
			rfsd_watch_del(loop, &m->ev);
	}
	if (e) {
		snprintf(err, len, "can't serve metrics on '%s': %s", addr,
			 strerror(-e));
		m->ev.fd = -1;	/* MHD's: MHD_stop_daemon() closes it */
		goto fail;
	}
	arm_timer(m);
	*mp = m;
	return 0;
fail:
	m->ev.fd = -1;
	if (m->tmr.fd >= 0)
		close(m->tmr.fd);
	if (m->mhd)
		MHD_stop_daemon(m->mhd);
	free(m);
	return e;
}

void rfsd_metrics_close(struct rfsd_metrics *m)
{
	if (!m)
		return;
	rfsd_watch_del(m->loop, &m->ev);
	rfsd_watch_del(m->loop, &m->tmr);
	/* closes every connection: on_conn() frees each */
	MHD_stop_daemon(m->mhd);
	close(m->tmr.fd);
	free(m->snap);
	free(m);
}
