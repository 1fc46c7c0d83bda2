/* SPDX-License-Identifier: GPL-2.0 */
/* Control socket access: uid 0 or group RFS_CTL_GROUP (rfs). */
#ifndef RFSD_PEERCRED_H
#define RFSD_PEERCRED_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "rfs_ctl_proto.h"

/* cr from SO_PEERCRED on fd; group is rfs's gid if have_group. */
bool rfsd_peer_allowed(int fd, const struct ucred *cr, bool have_group,
		       gid_t group);

#endif /* RFSD_PEERCRED_H */
