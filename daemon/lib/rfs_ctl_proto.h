/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's control protocol as both ends know it (docs/protocol.md): where
 * the socket is, who may use it, how long a request line may be.  rfsd
 * (server.c, request.c) and rfsctl (through ctl_client.c) take these from
 * here and nowhere else; the commands and their arguments are the
 * daemon's (commands.c) and the CLI's (rfsctl.c) tables.
 */
#ifndef RFS_CTL_PROTO_H
#define RFS_CTL_PROTO_H

/* rfsd --socket, socket = in rfsd.conf, and rfsctl --socket override it;
 * so does $RFS_SOCKET for rfsctl. */
#define RFS_CTL_SOCKET_DEFAULT	"/run/rfs/rfsd.sock"
#define RFS_CTL_SOCKET_ENV	"RFS_SOCKET"

/* Who may connect besides root: members of this group (the socket file's
 * group, mode 0660). */
#define RFS_CTL_GROUP		"rfs"

/* One request is one JSON object on one line of at most this many bytes,
 * the '\n' not counted; a longer one is refused (EMSGSIZE) and the
 * connection closed. */
#define RFS_CTL_REQUEST_MAX	65536

#endif /* RFS_CTL_PROTO_H */
