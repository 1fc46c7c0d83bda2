// SPDX-License-Identifier: GPL-2.0
/*
 * The control server (server.h) and the children that parse for rfsd.
 * One epoll loop serves every peer, so nothing here may block: a client
 * has an input buffer of at most one request line and an output backlog,
 * and is not read while it has RFSD_OUT_HIGH bytes of replies it has not
 * taken, or while its request waits for the datapath.
 */
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "log.h"
#include "server.h"

#define RFSD_IN_MAX	(RFS_CTL_REQUEST_MAX + 1)	/* the line and its '\n' */
#define RFSD_OUT_HIGH	(1u << 20)
/* A peer is silent once it has said nothing for this long: a client
 * sends its request right after connect(), but rfsd may accept it in
 * between. */
#define RFSD_SILENT_MS	500
/* The parser answers at once; one that does not is no longer ours. */
#define RFSD_PARSER_MS	2000
#define RFSD_NOBODY	65534	/* should the name not exist */

struct rfsd_client {
	struct rfsd_watch w;		/* w.fd: the connection */
	struct rfsd_server *srv;
	struct rfsd_client *next;
	uid_t uid;
	pid_t pid;
	char *out;		/* to send: [out_off, out_len) */
	size_t out_off, out_len, out_cap;
	bool eof;		/* the peer sent everything it will */
	bool waiting;		/* its request waits for the datapath */
	bool owns_job;		/* ... or for the job it started */
	bool closing;		/* close once its replies are out */
	bool denied;		/* not root or rfs: refuse its first request */
	bool reader;		/* may only read (server.h) */
	bool served;		/* it sent a whole request line */
	long long since_ms;	/* connected (rfs_mono_ms()) */
	long long line_ms;	/* the unfinished line began; 0: none */
	time_t last_active;
	size_t in_len;
	/* received, not consumed: [0, in_len), and room for a NUL after
	 * them; pages a short request does not fill stay unused */
	char in[];		/* RFSD_IN_MAX + 1 bytes */
};

struct rfsd_server {
	struct rfsd_watch lw;		/* the listening socket */
	struct rfsd_loop *loop;
	struct rfsd_dispatch dispatch;
	/* the socket's file: still ours when we leave? */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;
	ino_t ino;
	/* one request and its answer at a time: a message is one, whole */
	struct rfsd_child ps;
	struct rfsd_preq p;		/* its last answer */
	struct rfsd_groups grp;
	struct rfsd_client *clients;
	size_t n_clients;		/* allowed ones: they hold slots */
	size_t n_denied;
	time_t last_warn;
};

static int mkdir_parents(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* A socket file at path: someone's listening (-EADDRINUSE) or stale. */
static int probe_stale(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    errno == EAGAIN || errno == EINPROGRESS;
	close(fd);
	if (r)
		return -EADDRINUSE;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/* A bound (not yet listening) non-blocking socket at path, mode 0660, of
 * group *gid unless gid is NULL (no such group: root's alone), or -errno
 * with the reason in err. */
static int sock_bind(struct rfsd_server *s, const char *path,
		     const gid_t *gid, const char *group, char *err, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	gid_t egid = getegid();
	struct stat st;
	mode_t old;
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, len, "can't bind control socket '%s': path too long (max %zu bytes)",
			 path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	memcpy(sa.sun_path, path, strlen(path));
	e = mkdir_parents(path);
	if (e) {
		snprintf(err, len, "can't create the directory of control socket '%s': %s",
			 path, strerror(-e));
		return e;
	}
	e = probe_stale(path, &sa);
	if (e)
		goto fail;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = -errno;
		snprintf(err, len, "can't create control socket: %s", strerror(-e));
		return e;
	}
	/* 0660 and the group from bind() on: the file takes our umask and
	 * effective gid, and nothing is changed by path after (a path can
	 * be swapped in between, chmod() follows links).  Without
	 * CAP_SETGID (the unit) only our own gid will do: its Group=. */
	if (gid && setresgid(-1, *gid, -1)) {
		e = -errno;
		snprintf(err, len, "can't give control socket '%s' to group '%s': %s: run rfsd with that group (under systemd, Group=%s in a drop-in: systemctl edit rfsd) or with CAP_SETGID",
			 path, group, strerror(-e), group);
		close(fd);
		return e;
	}
	old = umask(0117);
	e = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (gid && setresgid(-1, egid, -1))
		pr_warn("can't take gid %u back: %s\n", egid, strerror(errno));
	if (e) {
		close(fd);
		goto fail;
	}
	if (!stat(path, &st)) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	return fd;
fail:
	snprintf(err, len, "can't bind control socket '%s': %s", path,
		 e == -EADDRINUSE ? "another rfsd is listening there" :
		 e == -EEXIST ? "a file that is not a socket is in the way" :
		 strerror(-e));
	return e;
}

static size_t client_pending(const struct rfsd_client *c)
{
	return c->out_len - c->out_off;
}

static int queue_out(struct rfsd_client *c, const char *buf, size_t n)
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

/* One reply line straight to fd, if it fits in its buffer (takes r): for
 * peers about to be closed, which get nothing else. */
static void send_last(int fd, struct json_object *r)
{
	const char *s = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN);
	char line[640];
	int n = snprintf(line, sizeof(line), "%s\n", s);

	if (n > 0 && (size_t)n < sizeof(line) &&
	    send(fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		pr_debug("can't send refusal: %s\n", strerror(errno));
	json_object_put(r);
}

/* Drain what fd has for us, then close it: closing with unread input
 * would make the peer read ECONNRESET after our last reply instead of a
 * clean end of file. */
static void close_fd(int fd)
{
	char buf[4096];
	int i;

	for (i = 0; i < 64; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
	close(fd);
}

static bool warn_ok(struct rfsd_server *s)
{
	time_t now = time(NULL);

	if (now == s->last_warn)
		return false;
	s->last_warn = now;
	return true;
}

static void client_close(struct rfsd_client *c)
{
	struct rfsd_server *s = c->srv;
	struct rfsd_client **pp;

	for (pp = &s->clients; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	if (c->denied)
		s->n_denied--;
	else
		s->n_clients--;
	if (c->owns_job)
		rfsd_sampler_client_gone(s->dispatch.ctx->sampler, c);
	/* the loop sees the removal: no later event of c is run */
	rfsd_watch_del(s->loop, &c->w);
	close_fd(c->w.fd);
	free(c->out);
	free(c);
}

static struct json_object *denied_reply(const struct rfsd_client *c)
{
	return rfsd_reply_err(EACCES,
			      "permission denied: uid %u is not root or in group %s",
			      c->uid, c->srv->grp.read_name);
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
	int unread;

	for (c = s->clients; c; c = c->next) {
		if (c->denied != denied || c->closing ||
		    (only != (uid_t)-1 && c->uid != only) ||
		    now - c->since_ms < RFSD_SILENT_MS ||
		    (!ioctl(c->w.fd, FIONREAD, &unread) && unread > 0))
			continue;
		if (denied || (!c->served && !c->waiting)) {
			if (!silent || c->since_ms <= silent->since_ms)
				silent = c;
		} else if (!c->waiting && !c->owns_job && !client_pending(c) &&
			   !c->in_len) {
			if (!idle || c->last_active <= idle->last_active)
				idle = c;
		}
	}
	return silent ?: idle;
}

/*
 * Room for one more peer of uid (denied: one more refused peer): true,
 * having dropped a silent or idle peer if the table was full, or uid's
 * share of it: root has none, others RFSD_MAX_PER_UID slots, so that one
 * member of the group can't fill the table with requests in flight that
 * no one may drop.  False, with *per_uid if the share was the limit, if
 * the newcomer must be refused.  Root is never refused while a spare
 * slot is left.
 */
static bool make_room(struct rfsd_server *s, uid_t uid, bool denied,
		      bool *per_uid)
{
	struct rfsd_client *c, *v;
	size_t n = 0;

	for (c = s->clients; c; c = c->next)
		n += !c->denied && c->uid == uid && !c->closing;
	*per_uid = !denied && uid && n >= RFSD_MAX_PER_UID;
	if (*per_uid) {
		v = pick_victim(s, false, uid);
		if (!v)
			return false;
		*per_uid = false;
		send_last(v->w.fd, rfsd_reply_err(EAGAIN,
			  "dropped: uid %u has %u connections already and this one was idle",
			  uid, RFSD_MAX_PER_UID));
		client_close(v);
	}
	if (denied ? s->n_denied < RFSD_MAX_DENIED :
		     s->n_clients < RFSD_MAX_CLIENTS)
		return true;
	v = pick_victim(s, denied, (uid_t)-1);
	if (v) {
		if (warn_ok(s))
			pr_warn("control socket full: dropping %s client uid %u (pid %d) for a new one\n",
				denied ? "a refused" : v->served ? "an idle" :
				"a silent", v->uid, v->pid);
		send_last(v->w.fd, denied ? denied_reply(v) :
			  rfsd_reply_err(EAGAIN,
					 "dropped: %u clients already and this one was idle",
					 RFSD_MAX_CLIENTS));
		client_close(v);
		return true;
	}
	return !denied && uid == 0 &&
	       s->n_clients < RFSD_MAX_CLIENTS + RFSD_ROOT_SPARE;
}

static void queue_reply(struct rfsd_client *c, struct json_object *reply)
{
	const char *s = json_object_to_json_string_ext(reply,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s || queue_out(c, s, strlen(s)) || queue_out(c, "\n", 1)) {
		pr_warn("can't queue reply for uid %u: %s\n", c->uid,
			strerror(ENOMEM));
		c->closing = true;
	}
	json_object_put(reply);
}

/* Send what the peer takes; false: it is gone (c is freed). */
static bool client_flush(struct rfsd_client *c)
{
	ssize_t n;

	while (client_pending(c)) {
		n = send(c->w.fd, c->out + c->out_off, client_pending(c),
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += n;
			c->last_active = time(NULL);
		} else if (n < 0 && errno == EAGAIN) {
			break;
		} else if (!n || errno != EINTR) {
			pr_debug("control client uid %u left: %s\n", c->uid,
				 n ? strerror(errno) : "closed");
			client_close(c);
			return false;
		}
	}
	if (c->closing && !client_pending(c)) {
		client_close(c);
		return false;
	}
	return true;
}

/* Receive until in holds a line and its '\n', the peer would block, or
 * it has sent everything (eof); false: the connection is done (c is
 * freed). */
static bool client_read(struct rfsd_client *c)
{
	ssize_t n;

	while (!c->eof && c->in_len < RFSD_IN_MAX) {
		n = recv(c->w.fd, c->in + c->in_len, RFSD_IN_MAX - c->in_len,
			 MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += n;
			c->last_active = time(NULL);
		} else if (!n) {
			c->eof = true;
		} else if (errno == EAGAIN) {
			break;
		} else if (errno != EINTR) {
			pr_debug("control client uid %u: %s\n", c->uid,
				 strerror(errno));
			client_close(c);
			return false;
		}
	}
	return true;
}

static void client_update(struct rfsd_client *c)
{
	uint32_t ev = 0;

	if (!c->closing && !c->eof && !c->waiting &&
	    c->in_len < RFSD_IN_MAX && client_pending(c) < RFSD_OUT_HIGH)
		ev |= EPOLLIN;
	if (client_pending(c))
		ev |= EPOLLOUT;
	if (ev != c->w.events && rfsd_watch_mod(c->srv->loop, &c->w, ev))
		pr_warn("can't watch control client uid %u: %s\n", c->uid,
			strerror(errno));
}

/* ---- the child processes ---- */

int rfsd_child_start(struct rfsd_child *c)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : RFSD_NOBODY;
	gid_t gid = pw ? pw->pw_gid : RFSD_NOBODY;
	int sv[2], buf = 1 << 18, e;
	pid_t pid, parent = getpid();
	sigset_t none;

	if (c->started_ms && rfs_mono_ms() - c->started_ms < 1000)
		return -EAGAIN;
	c->started_ms = rfs_mono_ms();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/* a whole request in one message, either way */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	pid = fork();
	if (pid) {
		close(sv[1]);
		if (pid < 0) {
			close(sv[0]);
			return -errno;
		}
		c->pid = pid;
		c->fd = sv[0];
		pr_info("%s running as pid %d\n", c->what, pid);
		return 0;
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	prctl(PR_SET_NAME, c->name);
	/* its socket and stdio (the journal), nothing else rfsd holds; out
	 * of the way first, as keep may be 3 (systemd's first) */
	c->fd = fcntl(sv[1], F_DUPFD, 10);
	if (c->keep >= 0)
		c->keep = fcntl(c->keep, F_DUPFD, 10);
	if (dup2(c->fd, 3) != 3 || (c->keep >= 0 && dup2(c->keep, 4) != 4))
		_exit(1);
	c->fd = 3;
	c->keep = c->keep >= 0 ? 4 : -1;
	if (close_range(c->fd + 1 + (c->keep >= 0), ~0U, 0))
		for (e = c->fd + 1 + (c->keep >= 0); e < 4096; e++)
			close(e);
	e = rfsd_caps_drop_all(uid, gid);
	if (e) {
		pr_warn("%s: can't drop privileges: %s\n", c->what,
			strerror(-e));
		_exit(1);
	}
	/* a Date header reads the time zone file, once: before the filter */
	tzset();
	/* where there is no filter, nobody's uid alone will do */
	e = rfsd_child_seccomp(c->http);
	if (e == -EOPNOTSUPP && getuid() == uid)
		pr_warn("%s: no system call filter for this architecture\n",
			c->what);
	else if (e) {
		pr_warn("%s: can't install its system call filter: %s\n",
			c->what, strerror(-e));
		_exit(1);
	}
	c->main(c);
	_exit(0);
}

void rfsd_child_stop(struct rfsd_child *c)
{
	int i;

	if (c->fd >= 0)
		close(c->fd);
	for (i = 0; c->pid > 0 && i < 10; i++) {
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
			c->pid = 0;
		else
			usleep(10 * 1000);
	}
	/* nobody's can't be signalled: it ends at its socket's end (the
	 * parser, stuck in a parse, at its alarm), reaped at a tick */
	if (c->pid > 0)
		c->stale = c->pid;
	c->pid = 0;
	c->fd = -1;
}

bool rfsd_child_tick(struct rfsd_child *c)
{
	int st;

	if (c->pid > 0 && waitpid(c->pid, &st, WNOHANG) == c->pid) {
		pr_warn("%s (pid %d) %s %d; restarting it\n", c->what, c->pid,
			WIFSIGNALED(st) ? "killed by signal" : "exited with",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		c->pid = 0;
		rfsd_child_stop(c);
	}
	if (c->stale && waitpid(c->stale, NULL, WNOHANG) == c->stale)
		c->stale = 0;
	return !c->pid && !rfsd_child_start(c);
}

/* ---- the parser process ---- */

/* Hand line to the parser, wait for its answer and run it. */
static enum rfsd_cmd_rc serve_line(struct rfsd_client *c, const char *line,
				   size_t len, struct json_object **reply)
{
	struct rfsd_server *s = c->srv;
	char r = c->reader;
	struct iovec iov[2] = { { &r, 1 }, { (void *)line, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct pollfd pfd = { .fd = s->ps.fd, .events = POLLIN };
	ssize_t n = s->ps.fd < 0 ? -1 : sendmsg(s->ps.fd, &mh, MSG_NOSIGNAL);
	int e = s->ps.fd < 0 ? ESRCH : errno;

	if (n >= 0) {
		do
			n = poll(&pfd, 1, RFSD_PARSER_MS);
		while (n < 0 && errno == EINTR);
		if (n > 0)
			n = recv(s->ps.fd, &s->p, sizeof(s->p), MSG_DONTWAIT);
		/* 0: the parser closed its end, or said nothing in time */
		e = n ? errno : pfd.revents ? EPIPE : ETIMEDOUT;
	}
	if (n > 0)
		return rfsd_request_exec(s->dispatch.cmds, s->dispatch.ctx, c,
					 c->reader ? s->grp.deny : NULL, &s->p,
					 n, reply);
	pr_warn("request parser (pid %d) failed: %s; restarting it\n",
		s->ps.pid, strerror(e));
	rfsd_child_stop(&s->ps);
	rfsd_child_start(&s->ps);
	*reply = rfsd_reply_err(EIO, "can't parse the request: the parser process failed (%s); try again",
				strerror(e));
	return RFSD_CMD_REPLY;
}

/* Serve the complete lines in the buffer; false: c is gone. */
static bool client_process(struct rfsd_client *c)
{
	struct json_object *reply;
	enum rfsd_cmd_rc rc;

	/* answered when it speaks: refused at once, a client's write
	 * could fail before it gets to read why */
	if (c->denied && !c->closing && (c->in_len || c->eof)) {
		queue_reply(c, denied_reply(c));
		c->closing = true;
		c->in_len = 0;
	}
	while (!c->closing && !c->waiting && client_pending(c) < RFSD_OUT_HIGH) {
		char *nl = c->in_len ? memchr(c->in, '\n', c->in_len) : NULL;
		size_t len, used;

		if (nl) {
			len = nl - c->in;
			used = len + 1;
		} else if (c->in_len > RFS_CTL_REQUEST_MAX) {
			len = used = RFS_CTL_REQUEST_MAX + 1;
		} else if (c->eof && c->in_len) {
			/* a last request without its '\n': serve it anyway */
			len = used = c->in_len;
		} else {
			break;
		}
		if (len > RFS_CTL_REQUEST_MAX) {
			queue_reply(c, rfsd_reply_err(EMSGSIZE,
					"request too long (max %d bytes)",
					RFS_CTL_REQUEST_MAX));
			c->closing = true;
			c->in_len = 0;
			break;
		}
		c->in[len] = '\0';
		c->served = true;
		pr_debug("request from uid %u: %.200s\n", c->uid, c->in);
		reply = NULL;
		rc = serve_line(c, c->in, len, &reply);
		if (rc == RFSD_CMD_WAIT) {
			if (nl)
				*nl = '\n';
			c->waiting = true;
			break;
		}
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
		c->line_ms = 0;
		if (rc == RFSD_CMD_STARTED) {
			c->waiting = c->owns_job = true;
			break;
		}
		queue_reply(c, reply);
	}
	if (c->eof && !c->in_len && !c->waiting)
		c->closing = true;
	/* part of a line is left: its clock runs from its first byte, and
	 * bytes that trickle in later do not reset it */
	if (!c->in_len)
		c->line_ms = 0;
	else if (!c->waiting && !c->line_ms)
		c->line_ms = rfs_mono_ms();
	if (!client_flush(c))
		return false;
	client_update(c);
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
		bool denied, per_uid;
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
		if (!make_room(s, cr.uid, denied, &per_uid)) {
			if (warn_ok(s))
				pr_warn("refusing control connection from uid %u (pid %d): %u %s already\n",
					cr.uid, cr.pid,
					per_uid ? RFSD_MAX_PER_UID : RFSD_MAX_CLIENTS,
					per_uid ? "from that uid" : "clients");
			send_last(fd, per_uid ?
				  rfsd_reply_err(EAGAIN, "too many connections from uid %u (max %u); try again",
						 cr.uid, RFSD_MAX_PER_UID) :
				  rfsd_reply_err(EAGAIN, "too many clients (max %u); try again",
						 RFSD_MAX_CLIENTS));
			close_fd(fd);
			continue;
		}
		c = malloc(sizeof(*c) + RFSD_IN_MAX + 1);
		if (c)
			*c = (struct rfsd_client){
				.w = { .fd = fd, .fn = client_event }, .srv = s,
				.uid = cr.uid, .pid = cr.pid, .denied = denied,
				.reader = role == RFSD_ROLE_READ,
				.last_active = time(NULL), .since_ms = rfs_mono_ms(),
			};
		if (!c || rfsd_watch_add(s->loop, &c->w, EPOLLIN)) {
			pr_warn("can't watch control client: %s\n",
				strerror(c ? errno : ENOMEM));
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
	s->ps = (struct rfsd_child){ .name = RFSD_PARSER_NAME,
				     .what = "request parser",
				     .main = rfsd_request_serve,
				     .arg = (void *)dispatch->cmds, .keep = -1,
				     .fd = -1 };
	s->dispatch = *dispatch;
	rfsd_server_set_groups(s, read_group ?: RFS_CTL_GROUP, admin_group);
	s->lw.fd = sock_bind(s, path, s->grp.have_read ? &s->grp.read : NULL,
			    s->grp.read_name, err, len);
	if (s->lw.fd < 0) {
		e = s->lw.fd;
		free(s);
		return e;
	}
	*out = s;
	return 0;
}

int rfsd_server_listen(struct rfsd_server *s, char *err, size_t len)
{
	int e;

	/* the context is filled in between bind and listen */
	s->dispatch.ctx->parser = &s->ps;
	e = rfsd_child_start(&s->ps);
	if (e) {
		snprintf(err, len, "can't start the request parser: %s",
			 strerror(-e));
		return e;
	}
	s->lw.fn = server_accept;
	e = listen(s->lw.fd, RFSD_MAX_CLIENTS) ? -errno :
	    rfsd_watch_add(s->loop, &s->lw, EPOLLIN);
	if (e)
		snprintf(err, len, "can't listen on control socket '%s': %s",
			 s->path, strerror(-e));
	return e;
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
	/* not before it listens: its start starts the first */
	if (s->lw.fn)
		rfsd_child_tick(&s->ps);
	for (c = s->clients; c; c = next) {
		long long ms = rfs_mono_ms();

		next = c->next;
		if (c->waiting)
			continue;
		if (c->line_ms && !c->closing &&
		    ms - c->line_ms >= RFSD_LINE_SECS * 1000LL) {
			pr_debug("control client uid %u did not finish its request line in %d s; dropped\n",
				 c->uid, RFSD_LINE_SECS);
			send_last(c->w.fd, rfsd_reply_err(ETIMEDOUT,
					    "request line not finished within %d s",
					    RFSD_LINE_SECS));
		} else if (c->served ? now - c->last_active >= RFSD_IDLE_SECS :
			   /* a refused peer too: it had its chance to ask */
			   ms - c->since_ms >= RFSD_HELLO_SECS * 1000LL) {
			pr_debug("control client uid %u %s %d s; dropped\n", c->uid,
				 c->served ? "idle for" : "sent no request in",
				 c->served ? RFSD_IDLE_SECS : RFSD_HELLO_SECS);
		} else {
			continue;
		}
		client_close(c);
	}
}

void rfsd_server_close(struct rfsd_server *s)
{
	struct stat st;

	if (!s)
		return;
	while (s->clients)
		client_close(s->clients);
	if (s->lw.fd >= 0) {
		if (s->lw.fn)
			rfsd_watch_del(s->loop, &s->lw);
		close(s->lw.fd);
	}
	/* a newer rfsd may have taken the path over: leave its socket */
	if (!stat(s->path, &st) && st.st_dev == s->dev && st.st_ino == s->ino)
		unlink(s->path);
	rfsd_child_stop(&s->ps);
	s->dispatch.ctx->parser = NULL;
	free(s);
}

const char *rfsd_client_who(const struct rfsd_client *c)
{
	static char who[40];

	snprintf(who, sizeof(who), "uid %u pid %d", c->uid, c->pid);
	return who;
}
