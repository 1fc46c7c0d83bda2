// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics over HTTP (server.h).  libmicrohttpd parses in an
 * RFSD_HTTP_NAME child, which owns a copy of the listening socket; rfsd
 * answers its asks with a memfd of the exposition gathered at most once
 * per RFSD_METRICS_SNAP_MS, so scrapers (or a child taken over) can make
 * rfsd do one snapshot a second.  In the child MHD runs with epoll under
 * external polling: its epoll fd sits in the child's loop, and a timerfd
 * armed by MHD_get_timeout() runs it for timeouts, as its manual requires.
 */
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <microhttpd.h>

#include "log.h"
#include "rfs_prom.h"
#include "server.h"

/* The child waits this long for rfsd's snapshot, then answers 500. */
#define RFSD_METRICS_ASK_MS	2000

/* A connection MHD accepted, until it closes: its deadline. */
struct rfsd_mconn {
	struct rfsd_mconn *next;
	int fd;
	long long until_ms;	/* rfs_mono_ms() */
	bool cut;		/* shut down: MHD closes it next */
};

/* rfsd's side */
struct rfsd_metrics {
	struct rfsd_child ch;
	struct rfsd_watch w;		/* ch.fd; -1 while there is none */
	struct rfsd_loop *loop;
	const struct rfsd_dispatch *dispatch;
	int lfd, family;
	int snap_fd;			/* the last snapshot; -1: err says why */
	long long snap_ms;		/* when it was gathered; 0: never */
	char err[RFS_CTL_ERR_LEN];
	char addr[64];
};

/* The child's side: one a process. */
static struct rfsd_http {
	struct MHD_Daemon *mhd;
	struct rfsd_mconn *conns;
	/* the last exposition, and when it came */
	char *snap;
	long long snap_ms;
	struct rfsd_loop *loop;
	struct rfsd_watch ev;		/* MHD's epoll fd */
	struct rfsd_watch tmr;		/* MHD's next timeout */
	struct rfsd_watch ctl;		/* the socket to rfsd */
} http;

/* ---- rfsd: gathering, the control requests run in-process ---- */

/* rfs_prom_call_fn: rfsd's own req to its handler, read as rfsctl does. */
static int run_request(void *ctx, struct json_object *req,
		       struct json_object **result, char *err, size_t len)
{
	const struct rfsd_dispatch *d = ctx;
	const char *line = json_object_to_json_string(req);
	struct json_object *reply = NULL, *r;
	enum rfsd_cmd_rc rc;
	int e;

	*result = NULL;
	rc = rfsd_request_run_as(d->cmds, d->ctx, NULL, NULL, line,
				 strlen(line), &reply);
	if (rc != RFSD_CMD_REPLY)	/* only flows waits or starts a job */
		snprintf(err, len, "'%s' did not answer at once", line);
	json_object_put(req);
	if (rc != RFSD_CMD_REPLY)
		return -EBUSY;
	e = rfs_ctl_result(reply, &r, err, len);
	if (!e)
		*result = json_object_get(r);
	json_object_put(reply);
	return e;
}

/* A new snapshot in a memfd, or the reason there is none in m->err. */
static void gather(struct rfsd_metrics *m)
{
	struct json_object *snap;
	FILE *f = NULL;
	int e, fd = -1, wfd;

	e = rfs_prom_collect(run_request, (void *)m->dispatch, &snap, m->err,
			     sizeof(m->err));
	if (!e) {
		fd = memfd_create("rfsd-metrics", MFD_CLOEXEC);
		wfd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (wfd >= 0 && !(f = fdopen(wfd, "w")))
			close(wfd);
		e = f ? rfs_prom_format(f, snap) : -errno;
		if (f && fclose(f) && !e)
			e = -errno;
		json_object_put(snap);
		if (e)
			snprintf(m->err, sizeof(m->err), "%s", strerror(-e));
	}
	if (e && fd >= 0)
		close(fd);
	if (m->snap_fd >= 0)
		close(m->snap_fd);
	m->snap_fd = e ? -1 : fd;
	m->snap_ms = rfs_mono_ms();
	if (e)
		pr_warn("can't serve metrics on '%s': %s\n", m->addr, m->err);
	else
		pr_debug("metrics: gathered a snapshot\n");
}

/* The child asked: the snapshot's memfd with one byte, or why there is none. */
static void answer(struct rfsd_metrics *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { "", 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (!m->snap_ms || rfs_mono_ms() - m->snap_ms >= RFSD_METRICS_SNAP_MS)
		gather(m);
	if (m->snap_fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &m->snap_fd, sizeof(int));
	} else {
		iov = (struct iovec){ m->err, strlen(m->err) + 1 };
	}
	if (sendmsg(m->ch.fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		pr_debug("metrics: can't answer the server: %s\n",
			 strerror(errno));
}

static void on_child(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_metrics *m = rfsd_container_of(w, struct rfsd_metrics, w);
	char b;
	ssize_t n = recv(w->fd, &b, 1, MSG_DONTWAIT);

	if (n == 1) {
		answer(m);
	} else if (!n || errno != EAGAIN || (ev & (EPOLLHUP | EPOLLERR))) {
		/* gone: rfsd_metrics_tick() reaps it and starts another */
		rfsd_watch_del(m->loop, w);
		w->fd = -1;
	}
}

void rfsd_metrics_tick(struct rfsd_metrics *m)
{
	if (!m || !rfsd_child_tick(&m->ch))
		return;
	m->w.fd = m->ch.fd;
	if (rfsd_watch_add(m->loop, &m->w, EPOLLIN))
		m->w.fd = -1;
}

/* ---- the child: HTTP ---- */

/* What rfsd sent: the last snapshot (0) or why there is none (-errno,
 * err); -EAGAIN: nothing. */
static int take(struct rfsd_http *h, char *err, size_t len)
{
	int e = -EAGAIN;

	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { err, len - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		struct stat st;
		ssize_t n = recvmsg(h->ctl.fd, &mh,
				    MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		char *buf;
		int fd = -1;

		if (n <= 0)
			return n < 0 && errno == EAGAIN ? e : n ? -errno : -EPIPE;
		err[n] = '\0';
		cm = CMSG_FIRSTHDR(&mh);
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		if (fd < 0) {
			e = -EIO;
			continue;
		}
		buf = fstat(fd, &st) ? NULL : malloc(st.st_size + 1);
		if (buf && pread(fd, buf, st.st_size, 0) == st.st_size) {
			buf[st.st_size] = '\0';
			free(h->snap);
			h->snap = buf;
			h->snap_ms = rfs_mono_ms();
			e = 0;
		} else {
			snprintf(err, len, "can't read rfsd's snapshot: %s",
				 strerror(errno ?: EIO));
			free(buf);
			e = -EIO;
		}
		close(fd);
	}
}

/* A snapshot at most RFSD_METRICS_SNAP_MS old from rfsd: 0, or -errno
 * and the reason in err. */
static int ask(struct rfsd_http *h, char *err, size_t len)
{
	struct pollfd p = { .fd = h->ctl.fd, .events = POLLIN };
	int n;

	/* an answer that came too late for an earlier ask is no answer */
	if (take(h, err, len) == -EPIPE ||
	    send(h->ctl.fd, "?", 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
		snprintf(err, len, "rfsd is gone");
		return -EPIPE;
	}
	do
		n = poll(&p, 1, RFSD_METRICS_ASK_MS);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		snprintf(err, len, "rfsd did not answer in %d ms",
			 RFSD_METRICS_ASK_MS);
		return -ETIMEDOUT;
	}
	return take(h, err, len);
}

/* The snapshot is the exposition, any other body a message.  body is
 * copied: a snapshot may be replaced before MHD sends it. */
static enum MHD_Result respond(struct MHD_Connection *conn, unsigned int code,
			       const char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				body == http.snap ?
					RFS_PROM_CONTENT_TYPE :
					"text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req_ctx)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_CONTENT_LENGTH);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
					MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct rfsd_mconn *c = ci ? ci->socket_context : NULL;
	char err[RFS_CTL_ERR_LEN], msg[RFS_CTL_ERR_LEN + 32];
	struct rfsd_http *h = cls;

	/* a kept-alive connection has the whole deadline for its next
	 * request (the idle timeout bounds the wait between them) */
	if (c)
		c->until_ms = rfs_mono_ms() + RFSD_METRICS_DEADLINE * 1000LL;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			       "only GET and HEAD\n");
	/* a GET with a body is refused, on the headers that announce it:
	 * MHD's first call has them alone */
	if ((cl && strtoull(cl, NULL, 10)) ||
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return respond(conn, MHD_HTTP_BAD_REQUEST,
			       "no request body expected\n");
	if (!strcmp(url, "/"))
		return respond(conn, MHD_HTTP_OK,
			       "rfsd: Prometheus metrics at /metrics\n");
	if (strcmp(url, "/metrics"))
		return respond(conn, MHD_HTTP_NOT_FOUND,
			       "not found; the metrics are at /metrics\n");
	/* a scrape right after another gets the same text */
	if ((h->snap && rfs_mono_ms() - h->snap_ms < RFSD_METRICS_SNAP_MS) ||
	    !ask(h, err, sizeof(err)))
		return respond(conn, MHD_HTTP_OK, h->snap);
	snprintf(msg, sizeof(msg), "can't gather the metrics: %s\n", err);
	return respond(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection is accepted (its deadline
 * starts) or closed. */
static void on_conn(void *cls, struct MHD_Connection *conn, void **ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct rfsd_http *h = cls;
	struct rfsd_mconn *c = *ctx, **pp;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;		/* it still has MHD's idle timeout */
		ci = MHD_get_connection_info(conn,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = ci ? ci->connect_fd : -1;
		c->until_ms = rfs_mono_ms() + RFSD_METRICS_DEADLINE * 1000LL;
		c->next = h->conns;
		h->conns = c;
		*ctx = c;
	} else if (c) {
		for (pp = &h->conns; *pp != c; pp = &(*pp)->next)
			;
		*pp = c->next;
		free(c);
		*ctx = NULL;
	}
}

/*
 * Cut the connections past their deadline; the next deadline, or -1.
 * MHD has no call to close one of its connections from outside, so shut
 * its socket down: MHD sees the end of it at its next read or write, and
 * closes and frees it itself (on_conn() then forgets it).  The fd stays
 * MHD's, open until then, so it can't be reused under us.
 */
static long long cut_late(struct rfsd_http *h)
{
	long long now = rfs_mono_ms(), next = -1;
	struct rfsd_mconn *c;

	for (c = h->conns; c; c = c->next) {
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

static void arm_timer(struct rfsd_http *h)
{
	struct itimerspec its = {};
	MHD_UNSIGNED_LONG_LONG ms;
	long long late = cut_late(h);
	bool have = MHD_get_timeout(h->mhd, &ms) == MHD_YES;

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
	if (timerfd_settime(h->tmr.fd, 0, &its, NULL))
		pr_warn("can't arm the metrics timer: %s\n", strerror(errno));
}

static void on_mhd(struct rfsd_watch *w, uint32_t events)
{
	if (w == &http.tmr)
		rfsd_timer_ack(w);
	MHD_run(http.mhd);
	arm_timer(&http);
}

/* Input from rfsd outside an ask: a late answer, or its end. */
static void on_ctl(struct rfsd_watch *w, uint32_t events)
{
	struct rfsd_http *h = &http;
	char err[RFS_CTL_ERR_LEN];

	if (!(events & (EPOLLHUP | EPOLLERR)) &&
	    take(h, err, sizeof(err)) != -EPIPE)
		return;
	rfsd_watch_del(h->loop, &h->ev);
	rfsd_watch_del(h->loop, &h->tmr);
	rfsd_watch_del(h->loop, &h->ctl);
	/* closes every connection: on_conn() frees each */
	MHD_stop_daemon(h->mhd);
	close(h->tmr.fd);
	close(h->ctl.fd);
	free(h->snap);
	h->loop->stop = true;
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

pid_t rfsd_metrics_pid(const struct rfsd_metrics *m)
{
	return m ? m->ch.pid : 0;
}

/* The child: serve on c->keep until rfsd closes c->fd. */
static void http_main(struct rfsd_child *c)
{
	const struct rfsd_metrics *m = c->arg;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			     (m->family == AF_INET6 ? MHD_USE_IPv6 : 0);
	static struct rfsd_loop loop;
	const union MHD_DaemonInfo *info;
	struct rfsd_http *h = &http;

	loop.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop.epfd < 0)
		return;
	h->loop = &loop;
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				  /* first, or MHD logs the rest itself */
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_LISTEN_SOCKET, c->keep,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)RFSD_METRICS_MAX_CONNS,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)RFSD_METRICS_TIMEOUT,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)RFSD_METRICS_PER_IP,
				  MHD_OPTION_NOTIFY_CONNECTION, on_conn, h,
				  MHD_OPTION_END);
	info = h->mhd ? MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD) :
			NULL;
	h->ev = (struct rfsd_watch){ .fd = info ? info->epoll_fd : -1,
				     .fn = on_mhd };
	h->tmr = (struct rfsd_watch){ .fn = on_mhd, .fd = timerfd_create(
		CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC) };
	h->ctl = (struct rfsd_watch){ .fd = c->fd, .fn = on_ctl };
	if (h->ev.fd < 0 || h->tmr.fd < 0 ||
	    rfsd_watch_add(&loop, &h->ev, EPOLLIN) ||
	    rfsd_watch_add(&loop, &h->tmr, EPOLLIN) ||
	    rfsd_watch_add(&loop, &h->ctl, EPOLLIN)) {
		pr_warn("%s: can't serve: %s\n", c->what,
			h->mhd ? strerror(errno) : "libmicrohttpd did not start");
		return;
	}
	arm_timer(h);
	rfsd_loop_run(&loop);
}

/* A listening socket on addr, or -errno. */
static int listen_on(const struct sockaddr_storage *ss, socklen_t sl)
{
	int one = 1, fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)ss, sl) ||
	    listen(fd, SOMAXCONN)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int rfsd_metrics_open(struct rfsd_metrics **mp, struct rfsd_loop *loop,
		      const struct rfsd_dispatch *dispatch, const char *addr,
		      int fd, char *err, size_t len)
{
	char name[64], host[INET6_ADDRSTRLEN], port[8];
	struct sockaddr_storage ss;
	struct rfsd_metrics *m;
	socklen_t sl = sizeof(ss);
	int e;

	*mp = NULL;
	if (!addr) {
		/* what fd listens on, as metrics_listen would name it */
		e = getsockname(fd, (struct sockaddr *)&ss, &sl) ? -errno : 0;
		if (!e && getnameinfo((struct sockaddr *)&ss, sl, host,
				      sizeof(host), port, sizeof(port),
				      NI_NUMERICHOST | NI_NUMERICSERV))
			e = -EAFNOSUPPORT;
		if (e) {
			snprintf(err, len, "can't serve metrics on the socket systemd passed: %s",
				 strerror(-e));
			return e;
		}
		snprintf(name, sizeof(name),
			 ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host,
			 port);
		addr = name;
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
	*m = (struct rfsd_metrics){ .loop = loop, .dispatch = dispatch,
				    .lfd = addr == name ? fd : listen_on(&ss, sl),
				    .family = ss.ss_family, .snap_fd = -1 };
	m->ch = (struct rfsd_child){ .name = RFSD_HTTP_NAME,
				     .what = "metrics server", .main = http_main,
				     .arg = m, .keep = m->lfd, .http = true,
				     .fd = -1 };
	snprintf(m->addr, sizeof(m->addr), "%s", addr);
	/* a passed socket: its unit's IPAddressAllow= says who reaches it */
	if (addr != name && !rfs_addr_loopback(&ss))
		pr_warn("WARNING: metrics_listen '%s' is not a loopback address: /metrics is served, without authentication, to whoever reaches it there\n",
			addr);
	e = m->lfd < 0 ? m->lfd : rfsd_child_start(&m->ch);
	m->w = (struct rfsd_watch){ .fd = m->ch.fd, .fn = on_child };
	if (!e)
		e = rfsd_watch_add(loop, &m->w, EPOLLIN);
	if (e) {
		snprintf(err, len, "can't serve metrics on '%s': %s", addr,
			 strerror(-e));
		m->w.fd = -1;
		if (addr == name)
			m->lfd = -1;	/* rfsd.c's still */
		rfsd_metrics_close(m);
		return e;
	}
	*mp = m;
	return 0;
}

void rfsd_metrics_close(struct rfsd_metrics *m)
{
	if (!m)
		return;
	if (m->w.fd >= 0)
		rfsd_watch_del(m->loop, &m->w);
	/* the child's end of rfsd's socket closes: it stops serving */
	rfsd_child_stop(&m->ch);
	if (m->lfd >= 0)
		close(m->lfd);
	if (m->snap_fd >= 0)
		close(m->snap_fd);
	free(m);
}
