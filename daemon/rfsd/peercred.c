// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use the control socket: root, or a member of group rfs.  The
 * peer's credentials are the kernel's (SO_PEERCRED, SO_PEERGROUPS), taken
 * at connect(); the group database is only a fallback for kernels without
 * SO_PEERGROUPS.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "peercred.h"

static bool in_groups(const gid_t *g, size_t n, gid_t want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] == want)
			return true;
	return false;
}

/* The peer's supplementary groups as the kernel recorded them at
 * connect(); caller frees *out. */
static int peer_groups(int fd, gid_t **out, size_t *n)
{
	socklen_t len = 64 * sizeof(gid_t);
	gid_t *g = NULL, *p;
	int tries, e = ENOPROTOOPT;

	for (tries = 0; tries < 4; tries++) {
		p = realloc(g, len ? len : sizeof(gid_t));
		if (!p) {
			e = ENOMEM;
			break;
		}
		g = p;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			*out = g;
			*n = len / sizeof(gid_t);
			return 0;
		}
		e = errno;
		if (e != ERANGE)
			break;
	}
	free(g);
	return -e;
}

/* uid 0, or a member of group rfs: primary or supplementary (from
 * SO_PEERGROUPS, else from the group database). */
bool rfsd_peer_allowed(int fd, const struct ucred *cr, bool have_group,
		       gid_t group)
{
	struct passwd *pw;
	gid_t *g = NULL;
	size_t n = 0;
	int ng = 256;
	bool ok;

	if (cr->uid == 0)
		return true;
	if (!have_group)
		return false;
	if (cr->gid == group)
		return true;
	if (!peer_groups(fd, &g, &n)) {
		ok = in_groups(g, n, group);
		free(g);
		return ok;
	}
	pw = getpwuid(cr->uid);
	g = calloc(ng, sizeof(*g));
	ok = pw && g && getgrouplist(pw->pw_name, pw->pw_gid, g, &ng) >= 0 &&
	     in_groups(g, ng, group);
	free(g);
	return ok;
}
