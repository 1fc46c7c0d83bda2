/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config's interfaces applied to the datapath (ifaces.c), and what
 * rfsd knows of each beyond the config: detached by rfsctl, waiting to
 * appear, lost to another tool.  Link events (netlink.c) and the control
 * commands (commands.c) report here.
 */
#ifndef RFSD_IFACES_H
#define RFSD_IFACES_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "config.h"
#include "rfs_dp.h"

struct rfsd_ifstate {
	char name[IF_NAMESIZE];
	bool user_detached;	/* rfsctl detach: don't bring it back */
	int last_err;		/* last attach attempt; -ENODEV: wait for it */
	__u32 lost_to;		/* another tool's program that replaced ours
				   (0: none left); lost says whether */
	bool lost;
};

struct rfsd_ifaces {
	struct rfs_dp *dp;
	const struct rfsd_config *cfg;	/* the config in effect */
	struct rfsd_ifstate *st;
	size_t n;
};

void rfsd_ifaces_start(struct rfsd_ifaces *ifs);
void rfsd_ifaces_reload(struct rfsd_ifaces *ifs,
			const struct rfsd_config *old);
void rfsd_ifaces_link_new(struct rfsd_ifaces *ifs, const struct rfsd_link *l);
/* A default route appeared: attach what the config now picks. */
void rfsd_ifaces_rescan(struct rfsd_ifaces *ifs);
void rfsd_ifaces_link_gone(struct rfsd_ifaces *ifs, int ifindex);
/* The link's XDP program is now prog_id (0: none): if another tool's
 * took ours away, the interface is lost. */
void rfsd_ifaces_link_xdp(struct rfsd_ifaces *ifs, int ifindex,
			  __u32 prog_id);
/* It moved to another network namespace (nsid, as new_ifindex there). */
void rfsd_ifaces_link_moved(struct rfsd_ifaces *ifs, int ifindex, int nsid,
			    int new_ifindex);
/* Forget the attached interfaces that are gone (link events were lost). */
void rfsd_ifaces_resync(struct rfsd_ifaces *ifs);
/* status: interfaces lost that way, as [{"name", "replaced_by"}] */
struct json_object *rfsd_ifaces_lost_json(struct rfsd_ifaces *ifs);
const struct rfsd_ifstate *rfsd_ifaces_lost(struct rfsd_ifaces *ifs,
					    const char *name);
void rfsd_ifaces_user_attach(struct rfsd_ifaces *ifs, const char *name);
void rfsd_ifaces_user_detach(struct rfsd_ifaces *ifs, const char *name);
/* Named in the config, not attached, not detached by rfsctl. */
size_t rfsd_ifaces_waiting(struct rfsd_ifaces *ifs);
void rfsd_ifaces_free(struct rfsd_ifaces *ifs);

#endif /* RFSD_IFACES_H */
