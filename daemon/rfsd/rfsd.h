/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's state, shared by its parts: the event loop (rfsd.c), the control
 * socket (server.c), the command handlers (commands.c, stats.c), the
 * configured interfaces (ifaces.c) and link events (netlink.c).
 *
 * One thread owns the datapath.  The only other thread is the flows
 * sampler (stats.c), which blocks for the sampling window; while it runs
 * (rfsd_dp_busy()) nothing else touches the datapath: requests that need
 * it wait in their client's buffer, link events wait in the netlink socket,
 * the CPU refresh and SIGHUP wait for the sampler to finish.
 */
#ifndef RFSD_H
#define RFSD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "rfs_dp.h"

struct rfsd;
struct rfsd_server;
struct rfsd_netlink;
struct rfsd_flows_job;

/* An fd in the epoll set; fn runs on its events. */
struct rfsd_watch {
	int fd;
	uint32_t events;	/* as registered */
	void (*fn)(struct rfsd *d, struct rfsd_watch *w, uint32_t events);
};

/* Configured interfaces: what rfsd knows beyond the config (ifaces.c). */
struct rfsd_ifstate {
	char name[IF_NAMESIZE];
	bool user_detached;	/* rfsctl detach: don't bring it back */
	int last_err;		/* last attach attempt; -ENODEV: wait for it */
	__u32 lost_to;		/* another tool replaced our program with this
				   one (0: none left); lost says whether */
	bool lost;
};

struct rfsd {
	struct rfs_dp *dp;
	int epfd;

	/* the command line: NULL or 0 where not given */
	const char *opt_config;
	const char *opt_socket;
	const char *opt_pin_dir;
	const char *opt_cgroup;
	enum rfs_trace_mode trace_mode;
	bool opt_cleanup;		/* --cleanup: remove everything, exit */

	const char *config_path;
	bool config_named;		/* --config: it must exist */
	struct rfsd_config cfg;
	const char *socket_path;	/* what is in effect */
	char cgroup[4096];

	struct rfsd_ifstate *ifstate;
	size_t n_ifstate;

	struct rfsd_server *srv;
	struct rfsd_netlink *nl;
	struct rfsd_flows_job *job;	/* non-NULL: the datapath is busy */
	int job_efd;			/* eventfd: the sampler is done */
	struct rfsd_watch job_watch;

	unsigned long client_closes;	/* bumped whenever a client is freed */
	bool stop;
	bool reload_pending;
	unsigned long ticks;		/* of the 1 s timer */
	char refresh_err[RFS_ERR_LEN];	/* last one logged */
	char status[256];		/* last STATUS= sent */
};

/* Orphaned rfs_xdp programs are looked for every RFSD_SWEEP_TICKS seconds;
 * one loaded less than RFSD_ORPHAN_MIN_AGE s ago may be another rfsd's
 * attach in progress, not an orphan. */
#define RFSD_SWEEP_TICKS	30
#define RFSD_ORPHAN_MIN_AGE	10

static inline bool rfsd_dp_busy(const struct rfsd *d)
{
	return d->job != NULL;
}

int rfsd_watch_add(struct rfsd *d, struct rfsd_watch *w, uint32_t events);
int rfsd_watch_mod(struct rfsd *d, struct rfsd_watch *w, uint32_t events);
void rfsd_watch_del(struct rfsd *d, struct rfsd_watch *w);

/* The sampler finished (or never started): let whatever waited go on. */
void rfsd_dp_released(struct rfsd *d);

/* ifaces.c */
void rfsd_ifaces_start(struct rfsd *d);
void rfsd_ifaces_reload(struct rfsd *d, const struct rfsd_config *old);
void rfsd_ifaces_link_new(struct rfsd *d, int ifindex, const char *name);
void rfsd_ifaces_link_gone(struct rfsd *d, int ifindex);
/* The link's XDP program is now prog_id (0: none): is it still ours? */
void rfsd_ifaces_link_xdp(struct rfsd *d, int ifindex, __u32 prog_id);
/* Another tool put its XDP program (id prog_id, 0: none) where ours was. */
void rfsd_ifaces_link_lost(struct rfsd *d, int ifindex, __u32 prog_id);
/* status: interfaces lost that way, as [{"name", "replaced_by"}] */
struct json_object *rfsd_ifaces_lost_json(struct rfsd *d);
/* The reason name was lost, or NULL. */
const struct rfsd_ifstate *rfsd_ifaces_lost(struct rfsd *d, const char *name);
/* It moved to another network namespace (nsid, as new_ifindex there). */
void rfsd_ifaces_link_moved(struct rfsd *d, int ifindex, int nsid,
			    int new_ifindex);
void rfsd_ifaces_resync(struct rfsd *d);
void rfsd_ifaces_user_attach(struct rfsd *d, const char *name);
void rfsd_ifaces_user_detach(struct rfsd *d, const char *name);
size_t rfsd_ifaces_waiting(const struct rfsd *d);
void rfsd_ifaces_free(struct rfsd *d);
/* "veth0 (ifindex 7, native, cpus 0-1, flow_cnt 4096)" */
void rfsd_if_describe(const struct rfs_if *ifc, char *buf, size_t len);

#endif /* RFSD_H */
