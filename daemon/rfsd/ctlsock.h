/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket's file: claim the path (make its directory, take over
 * a stale socket, never one someone listens on), bind with mode 0666, and
 * on exit remove it only if it is still ours.  A leaf: server.c owns the
 * listening fd once bound and knows the peers, and refuses every one that
 * is not root or in group rfs (peercred.c), from the credentials the
 * kernel took at connect(), as the D-Bus system bus does behind its 0666
 * socket.  A 0660 file of group rfs would need CAP_CHOWN, which with the
 * CAP_SYS_NICE of the kthread policy takes the unit's exposure over 3.0
 * (systemd/rfsd.service.in).
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

/* A bound (not yet listening) non-blocking socket at path, or -errno with
 * the reason in err. */
int rfsd_ctlsock_bind(struct rfsd_ctlsock *cs, const char *path, char *err,
		      size_t len);
/* Remove the file, unless a newer rfsd has taken the path over. */
void rfsd_ctlsock_unlink(struct rfsd_ctlsock *cs);

#endif /* RFSD_CTLSOCK_H */
