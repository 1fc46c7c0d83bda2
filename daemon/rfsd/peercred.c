// SPDX-License-Identifier: GPL-2.0
/* A control socket peer's role, from the kernel's credentials
 * (server.h). */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "log.h"
#include "server.h"

static void lookup_group(const char *name, bool *have, gid_t *gid)
{
	struct group *g = getgrnam(name);

	*have = g != NULL;
	*gid = g ? g->gr_gid : 0;
}

void rfsd_groups_set(struct rfsd_groups *g, const char *read,
		     const char *admin)
{
	if (read)
		snprintf(g->read_name, sizeof(g->read_name), "%s", read);
	snprintf(g->admin_name, sizeof(g->admin_name), "%s", admin);
	lookup_group(g->read_name, &g->have_read, &g->read);
	lookup_group(g->admin_name, &g->have_admin, &g->admin);
	snprintf(g->deny, sizeof(g->deny), "changes need root or group '%s'",
		 g->admin_name);
	if (!g->have_admin)
		pr_info("group '%s' does not exist: only root can change what rfsd steers\n",
			g->admin_name);
}

static bool in_groups(const gid_t *g, size_t n, gid_t want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] == want)
			return true;
	return false;
}

enum rfsd_role rfsd_role_of(uid_t uid, gid_t gid, const gid_t *g, size_t n,
			    const struct rfsd_groups *grp)
{
	if (uid == 0)
		return RFSD_ROLE_ADMIN;
	if (grp->have_admin && (gid == grp->admin || in_groups(g, n, grp->admin)))
		return RFSD_ROLE_ADMIN;
	if (grp->have_read && (gid == grp->read || in_groups(g, n, grp->read)))
		return RFSD_ROLE_READ;
	return RFSD_ROLE_NONE;
}

/* The peer's supplementary groups as the kernel recorded them at
 * connect(): they can't change, so a first call that says how many is
 * enough.  Caller frees *out. */
static int peer_groups(int fd, gid_t **out, size_t *n)
{
	socklen_t len = 0;
	gid_t *g;
	int e;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, NULL, &len) &&
	    errno != ERANGE)
		return -errno;
	g = malloc(len ?: sizeof(gid_t));
	if (!g)
		return -ENOMEM;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
		e = -errno;
		free(g);
		return e;
	}
	*out = g;
	*n = len / sizeof(gid_t);
	return 0;
}

enum rfsd_role rfsd_peer_role(int fd, const struct ucred *cr,
			      const struct rfsd_groups *grp)
{
	enum rfsd_role role;
	gid_t *g = NULL;
	size_t n = 0;

	if (cr->uid == 0 || (!grp->have_read && !grp->have_admin))
		return rfsd_role_of(cr->uid, cr->gid, NULL, 0, grp);
	/* failing that (no memory), the primary group alone */
	peer_groups(fd, &g, &n);
	role = rfsd_role_of(cr->uid, cr->gid, g, n, grp);
	free(g);
	return role;
}
