/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a control socket peer is, from the kernel's credentials of it:
 *
 *	admin	root, or a member of the admin group (admin_group,
 *		default rfs-admin): every command
 *	read	a member of the socket group (socket_group, default rfs):
 *		the commands that only read (status, stats, flows, explain,
 *		version); attach, detach and set are refused by name
 *	none	anyone else: refused at its first request
 *
 * Membership is the primary group or a supplementary one, as the kernel
 * took them at connect() (SO_PEERCRED, SO_PEERGROUPS): a peer that
 * leaves a group afterwards, or a pid reused in between, changes
 * nothing, where /proc/PID/status would be read after the fact.  The
 * group database is only a fallback for kernels without SO_PEERGROUPS
 * (before 4.13).  A group that does not exist has no members.
 */
#ifndef RFSD_PEERCRED_H
#define RFSD_PEERCRED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "rfs_ctl_proto.h"

#define RFSD_ADMIN_GROUP	"rfs-admin"

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

#endif /* RFSD_PEERCRED_H */
