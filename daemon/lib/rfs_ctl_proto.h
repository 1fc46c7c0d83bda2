/* SPDX-License-Identifier: GPL-2.0 */
/* rfsd's control protocol as both ends know it (docs/protocol.md); the
 * commands are the daemon's and the CLI's tables. */
#ifndef RFS_CTL_PROTO_H
#define RFS_CTL_PROTO_H

/* rfsd --socket, socket = in rfsd.conf, rfsctl --socket or $RFS_SOCKET */
#define RFS_CTL_SOCKET_DEFAULT	"/run/rfs/rfsd.sock"
#define RFS_CTL_SOCKET_ENV	"RFS_SOCKET"

/* Who may connect besides root: the socket file's group (mode 0660) */
#define RFS_CTL_GROUP		"rfs"

/* A request line's bytes, '\n' not counted: longer is refused (EMSGSIZE)
 * and the connection closed. */
#define RFS_CTL_REQUEST_MAX	65536

#endif /* RFS_CTL_PROTO_H */
