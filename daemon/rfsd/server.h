/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket (docs/protocol.md): a unix stream socket, one JSON
 * request per line, one reply line each, each line handed to the command
 * table it was given (struct rfsd_dispatch).  Everything is non-blocking and
 * bounded: a request line is at most RFS_CTL_REQUEST_MAX bytes and must
 * end within RFSD_LINE_SECS of its first byte, at most RFSD_MAX_CLIENTS
 * peers at once and RFSD_MAX_PER_UID of one uid but root, and a peer that
 * neither sends nor reads for RFSD_IDLE_SECS is dropped.  A peer sending
 * a byte now and then stays active, hence the line's own deadline.
 *
 * Idle peers must never lock the administrator out.  A peer gets
 * RFSD_HELLO_SECS from connect to its first whole request line; when the
 * table is full, a newcomer takes the slot of the peer that has connected
 * longest ago without a request, else of the one idle longest between
 * requests.  If every peer is busy with a request, root still gets one of
 * RFSD_ROOT_SPARE extra slots.  Refused peers (not root, not in group rfs)
 * take no slot: up to RFSD_MAX_DENIED of them wait, RFSD_HELLO_SECS at
 * most, to be told why, the oldest making room for the next.
 */
#ifndef RFSD_SERVER_H
#define RFSD_SERVER_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include <json.h>

#include "loop.h"
#include "request.h"
#include "rfs_ctl_proto.h"

#define RFSD_MAX_CLIENTS	64
#define RFSD_ROOT_SPARE		4
#define RFSD_MAX_DENIED		16
#define RFSD_IDLE_SECS		60
#define RFSD_HELLO_SECS		10
#define RFSD_LINE_SECS		10
#define RFSD_MAX_PER_UID	16

struct rfsd_server;
struct rfsd_client;

/* Where the server hands each request line: request.c parses it and runs
 * the command of cmds it names.  The server knows no command. */
struct rfsd_dispatch {
	const struct rfsd_cmd *cmds;	/* the table (commands.c) */
	struct rfsd_cmd_ctx *ctx;	/* what its handlers get */
	/* a client whose request started a job (RFSD_CMD_STARTED) left
	 * before rfsd_server_reply() */
	void (*client_gone)(struct rfsd_cmd_ctx *ctx, struct rfsd_client *c);
};

/* Claim path (bind, mode 0660, group read_group: NULL for
 * RFS_CTL_GROUP); admin_group (NULL: RFSD_ADMIN_GROUP) may change too
 * (peercred.h).  Clients can't connect until rfsd_server_listen(). */
int rfsd_server_bind(struct rfsd_server **s, struct rfsd_loop *loop,
		     const struct rfsd_dispatch *dispatch, const char *path,
		     const char *read_group, const char *admin_group,
		     char *err, size_t len);
int rfsd_server_listen(struct rfsd_server *s, char *err, size_t len);
/* Drop every client and remove the socket file (if it is still ours);
 * frees s (NULL is fine). */
void rfsd_server_close(struct rfsd_server *s);
/* Once a second: drop idle clients. */
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

uid_t rfsd_client_uid(const struct rfsd_client *c);
pid_t rfsd_client_pid(const struct rfsd_client *c);

#endif /* RFSD_SERVER_H */
