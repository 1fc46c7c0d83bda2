/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket's file: claim the path (make its directory, take over
 * a stale socket, never one someone listens on), bind with mode 0660 and
 * give it to the socket group (root:rfs), and on exit remove it only if
 * it is still ours.  The file keeps out everyone the group does not
 * name, before they can send a byte to rfsd's parser; server.c still
 * checks each peer's role (peercred.h) from the credentials the kernel
 * took at connect(), for a file someone widened and for the line between
 * reading and changing, which a file mode can't draw.  A leaf.
 */
#ifndef RFSD_CTLSOCK_H
#define RFSD_CTLSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

struct rfsd_ctlsock {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;		/* of the file we bound: still ours? */
	ino_t ino;
	bool bound;
};

/* A bound (not yet listening) non-blocking socket at path, mode 0660, of
 * group *gid (named group) unless gid is NULL (no such group: root's
 * alone), or -errno with the reason in err. */
int rfsd_ctlsock_bind(struct rfsd_ctlsock *cs, const char *path,
		      const gid_t *gid, const char *group, char *err,
		      size_t len);
/* Remove the file, unless a newer rfsd has taken the path over. */
void rfsd_ctlsock_unlink(struct rfsd_ctlsock *cs);

#endif /* RFSD_CTLSOCK_H */
