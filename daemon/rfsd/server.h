/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's two servers, the processes that parse for them, the peers' roles
 * and the capabilities rfsd keeps.
 *
 * The control socket (server.c; its limits are docs/protocol.md's): one
 * JSON request a line (commands.h).  Idle peers must never lock the
 * administrator out: a silent or idle peer makes room for a newcomer,
 * root has RFSD_ROOT_SPARE slots beyond a table of busy peers, and refused
 * peers hold no slot.
 *
 * Roles come from the credentials the kernel took at connect()
 * (SO_PEERCRED, SO_PEERGROUPS), so a peer that leaves a group afterwards,
 * or a pid reused, changes nothing: admin (root, admin_group) may do all,
 * read (socket_group) only what reads, anyone else is refused.  The
 * socket file is 0660 root:socket_group; the role is checked all the
 * same, for a file someone widened and for the line between reading and
 * changing, which a file mode can't draw.
 */
#ifndef RFSD_SERVER_H
#define RFSD_SERVER_H

#include <sys/socket.h>
#include <time.h>

#include "commands.h"
#include "rfsd.h"

#define RFSD_MAX_CLIENTS	64
#define RFSD_ROOT_SPARE		4
#define RFSD_MAX_DENIED		16
#define RFSD_IDLE_SECS		60
#define RFSD_HELLO_SECS		10
#define RFSD_LINE_SECS		10
#define RFSD_MAX_PER_UID	16
#define RFSD_ADMIN_GROUP	"rfs-admin"
#define RFSD_PARSER_NAME	"rfsd-parse"
#define RFSD_HTTP_NAME		"rfsd-http"

struct rfsd_server;

/*
 * A process rfsd forks to parse what peers send (the request parser, the
 * HTTP server), so that a parser bug gives nothing rfsd holds: named name
 * (what, in the log), killed with rfsd, no capability and no way to gain
 * one, nobody's uid when rfsd may switch, a system call filter (caps.c),
 * and only fd 3, its end of a SOCK_SEQPACKET pair with rfsd, and fd 4,
 * keep's copy (-1: none), besides stdio.
 */
struct rfsd_child {
	const char *name, *what;
	void (*main)(struct rfsd_child *c);	/* then it exits */
	void *arg;
	int keep;
	bool http;		/* the HTTP server's filter */
	pid_t pid;		/* 0: none */
	pid_t stale;		/* one stopped, not reaped yet */
	int fd;			/* rfsd's end; -1: none */
	long long started_ms;
};

/* 0 or -errno (-EAGAIN: one started less than a second ago). */
int rfsd_child_start(struct rfsd_child *c);
/* Close rfsd's end, which ends the child. */
void rfsd_child_stop(struct rfsd_child *c);
/* Once a second: reap one that died, start one if there is none: true
 * when it started one. */
bool rfsd_child_tick(struct rfsd_child *c);

/* Where the server hands each request: the table and its context. */
struct rfsd_dispatch {
	const struct rfsd_cmd *cmds;
	struct rfsd_cmd_ctx *ctx;
};

/* Claim path (bind, mode 0660, group read_group: NULL for
 * RFS_CTL_GROUP); admin_group (NULL: RFSD_ADMIN_GROUP) may change too. */
int rfsd_server_bind(struct rfsd_server **s, struct rfsd_loop *loop,
		     const struct rfsd_dispatch *dispatch, const char *path,
		     const char *read_group, const char *admin_group,
		     char *err, size_t len);
/* Start the parser process and listen. */
int rfsd_server_listen(struct rfsd_server *s, char *err, size_t len);
/* Drop every client, stop the parser, remove the socket file if it is
 * still ours; NULL is fine. */
void rfsd_server_close(struct rfsd_server *s);
/* Once a second: drop idle clients, restart a parser that died. */
void rfsd_server_tick(struct rfsd_server *s, time_t now);
/* A job ended (a flows sample): serve the requests that waited for it. */
void rfsd_server_kick(struct rfsd_server *s);
/* The reply to a request that was answered later (takes reply). */
void rfsd_server_reply(struct rfsd_server *s, struct rfsd_client *c,
		       struct json_object *reply);
/* Look the groups up again (SIGHUP); read NULL keeps the socket group
 * (the file's, fixed at start), admin NULL is RFSD_ADMIN_GROUP. */
void rfsd_server_set_groups(struct rfsd_server *s, const char *read,
			    const char *admin);

/* "uid 1000 pid 42", for the log of a change (valid to the next call) */
const char *rfsd_client_who(const struct rfsd_client *c);

/* ---- least privilege (caps.c): the peers' roles, the capabilities ---- */

enum rfsd_role {
	RFSD_ROLE_NONE,
	RFSD_ROLE_READ,
	RFSD_ROLE_ADMIN,
};

/* The two groups, looked up at start and on SIGHUP. */
struct rfsd_groups {
	bool have_read, have_admin;	/* the group exists */
	gid_t read, admin;
	char read_name[40], admin_name[40];
	char deny[96];			/* why a reader can't change */
};

/* Name the groups (read NULL: keep the one named before) and look them
 * up; an admin group that does not exist is logged. */
void rfsd_groups_set(struct rfsd_groups *g, const char *read,
		     const char *admin);
/* The role of a peer with uid, primary gid and supplementary groups
 * g[0..n). */
enum rfsd_role rfsd_role_of(uid_t uid, gid_t gid, const gid_t *g, size_t n,
			    const struct rfsd_groups *grp);
/* The role of the peer on fd; cr from SO_PEERCRED on fd. */
enum rfsd_role rfsd_peer_role(int fd, const struct ucred *cr,
			      const struct rfsd_groups *grp);

/* Drop every capability but those rfsd keeps (CAP_SYS_NICE only if
 * keep_nice) from every set, the bounding one when CAP_SETPCAP allows;
 * kept: their names, dropped: how many left the effective set. */
int rfsd_caps_drop(bool keep_nice, char *kept, size_t len, int *dropped);
/* In a child: no capability at all, none in the bounding set either when
 * CAP_SETPCAP allows, no way to gain one, and uid:gid when CAP_SETUID
 * allows.  0 or -errno. */
int rfsd_caps_drop_all(uid_t uid, gid_t gid);
/* Then: a system call filter that allows only what parsing (and with
 * http, serving HTTP) needs and kills the process on anything else.  0,
 * -EOPNOTSUPP on an architecture it has no list for, or -errno. */
int rfsd_child_seccomp(bool http);

/* ---- /metrics over HTTP (metrics.c) ---- */

#define RFSD_METRICS_MAX_CONNS	16	/* at once; more wait in the backlog */
#define RFSD_METRICS_TIMEOUT	10	/* s without progress: dropped */
#define RFSD_METRICS_PER_IP	4	/* at once from one address */
#define RFSD_METRICS_DEADLINE	10	/* s from accept: dropped */
#define RFSD_METRICS_SNAP_MS	1000	/* a snapshot serves this long */

struct rfsd_metrics;

/* Listen on addr ("127.0.0.1:9464", "[::1]:9464"), or with addr NULL on
 * fd (a listening TCP socket, closed with the server), served by an
 * RFSD_HTTP_NAME child that asks loop's rfsd for each snapshot.  0, or
 * -errno with "can't serve metrics on '<addr>': <cause>" in err. */
int rfsd_metrics_open(struct rfsd_metrics **m, struct rfsd_loop *loop,
		      const struct rfsd_dispatch *dispatch, const char *addr,
		      int fd, char *err, size_t len);
/* NULL is fine. */
void rfsd_metrics_close(struct rfsd_metrics *m);
/* Once a second: restart an HTTP server that died. */
void rfsd_metrics_tick(struct rfsd_metrics *m);
/* What it listens on, as metrics_listen names it. */
const char *rfsd_metrics_addr(const struct rfsd_metrics *m);
/* The RFSD_HTTP_NAME child serving it; 0: none (not serving, or being
 * restarted). */
pid_t rfsd_metrics_pid(const struct rfsd_metrics *m);

#endif /* RFSD_SERVER_H */
