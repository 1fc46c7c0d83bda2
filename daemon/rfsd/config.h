/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd.conf: [global], and [interface eth1] (one interface by name) or
 * [interface eth* !eth9 default-route] (those the words pick); the keys
 * are in config.c's tables, rfsd(8) CONFIGURATION is the reference.
 * Unknown sections and keys are errors that name file:line, and so is a
 * value of the wrong kind ("flow_cnt '4k' is not a number").
 */
#ifndef RFSD_CONFIG_H
#define RFSD_CONFIG_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "parse.h"
#include "rfs_common.h"

#define RFSD_CONFIG_DEFAULT	"/etc/rfs/rfsd.conf"
#define RFSD_CONFIG_ERR_LEN	512

/* A drain normally takes a ring's latency plus a GRO flush, well under a
 * second: ten seconds is far past any flow that leaves gaps, and short
 * enough for an operator waiting on a removal. */
#define RFSD_LEAVING_WARN_DEFAULT	10
#define RFSD_LEAVING_WARN_MAX		86400

/* The keys as rfsd(8) describes them; 0 or NULL where not set. */
struct rfsd_iface_cfg {
	char name[IF_NAMESIZE];		/* [interface NAME]; "" for a pattern */
	char *match;			/* the words of a pattern section */
	char *cpus;			/* as written, resolved per node */
	__u32 flow_cnt;
	enum rfs_xdp_mode mode;
	bool noguard;			/* only under --unsafe-noguard */
	unsigned int set;		/* keys seen, for duplicates */
};

/* cpumap_kthread_sched (ksched.c): the default is SCHED_FIFO 1, which
 * preempts tasks the way kernel RFS's softirq does; the kernel's
 * SCHED_OTHER can be kept off its CPU for long (docs/design.md). */
enum rfsd_ksched_kind {
	RFSD_KSCHED_KERNEL,
	RFSD_KSCHED_NICE,		/* SCHED_OTHER at nice prio */
	RFSD_KSCHED_FIFO,		/* SCHED_FIFO at rt priority prio */
	RFSD_KSCHED_BATCH,		/* SCHED_BATCH at nice prio */
};

#define RFSD_KSCHED_DEFAULT \
	((struct rfsd_ksched){ .kind = RFSD_KSCHED_FIFO, .prio = 1 })

struct rfsd_ksched {
	enum rfsd_ksched_kind kind;
	int prio;
};

struct rfsd_config {
	__u32 sock_flow_entries;
	char *socket;
	char *socket_group;		/* NULL: RFS_CTL_GROUP (peercred.h) */
	char *admin_group;		/* NULL: RFSD_ADMIN_GROUP */
	__u64 budget_iface;		/* bytes; 0: from MemTotal */
	__u64 budget_total;
	char *pin_dir;
	char *cgroup;
	bool detach_on_exit;
	char *metrics_listen;		/* "[::1]:9464"; NULL: off */
	struct rfsd_ksched ksched;
	bool allow_unordered;
	bool early_drop;
	__u32 leaving_warn_s;		/* 0: never warn */
	char *exclude;
	unsigned int set;
	struct rfsd_iface_cfg *ifs;
	size_t n_ifs;
};

/* Parse path into cfg.  A missing file gives an empty config unless
 * must_exist.  0 or -errno with the reason in err ("can't parse config
 * '/etc/rfs/rfsd.conf:7': unknown key 'x' in [global]"); _parse reads f,
 * open (NULL: no file), and path only names it. */
int rfsd_config_load(const char *path, bool must_exist,
		     struct rfsd_config *cfg, char *err);
int rfsd_config_parse(FILE *f, const char *path, struct rfsd_config *cfg,
		      char *err);
void rfsd_config_free(struct rfsd_config *cfg);
/* 0, or -EPERM with the reason in err when a section asks for noguard
 * and rfsd was not started with --unsafe-noguard. */
int rfsd_config_check_noguard(const struct rfsd_config *cfg, const char *path,
			      bool unsafe_noguard, char *err);
/* The value back as the config spells it: "kernel", "nice:-5", "fifo:1". */
void rfsd_ksched_name(const struct rfsd_ksched *k, char *buf, size_t len);
/* The section naming name exactly, or NULL. */
const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name);
/* Words separated by blanks, each given to fn until it returns nonzero. */
int rfsd_for_words(const char *s, int (*fn)(const char *w, void *arg),
		   void *arg);
/* "[interface eth1]", "[interface eth* !eth9]" */
const char *rfsd_iface_cfg_label(const struct rfsd_iface_cfg *ic, char *buf,
				 size_t len);

/*
 * A cpus value on this node: words, each a CPU list, "all" (online),
 * "isolated" (isolcpus and nohz_full), "housekeeping" (online, not
 * isolated), "!" before a word takes it away; no word to add from means
 * all.  root prefixes /sys (""; tests give a fake one); NULL only checks
 * the spelling.  out empty: every online CPU, following hotplug (no cpus,
 * or just "all").  0; -EINVAL, -ERANGE a bad word, -ENOENT no CPU left.
 */
int rfsd_cpus_resolve(const char *spec, const char *root,
		      struct rfs_cpuset *out);
/* ic's cpus on this node; the reason in err if they can't be had. */
int rfsd_iface_cpus(const struct rfsd_iface_cfg *ic, struct rfs_cpuset *set,
		    char *err, size_t len);

/* What a node knows of a link, for the sections to match against. */
struct rfsd_link {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned short type;		/* ARPHRD_* */
	unsigned int flags;		/* IFF_* */
	bool default_route;		/* an oif of a main-table default */
};

/* What rtnetlink says of this network namespace and others (netns.c). */
#define RFSD_NL_BUF	(64 * 1024)

struct rfsd_link_msg {
	struct rfsd_link l;
	int nsid, new_ifindex;		/* a move to another netns */
	bool has_xdp;
	__u32 xdp_prog;			/* the XDP program it runs now */
};

struct nlmsghdr;

/* An RTM_NEWLINK or RTM_DELLINK into m: 0, or -1 for another message. */
int rfsd_link_parse(const struct nlmsghdr *nlh, struct rfsd_link_msg *m);
/* The output interfaces of a main-table unicast default route (IPv4 or
 * IPv6, one or several next hops) into oifs; how many, 0 for another
 * message. */
int rfsd_route_default_oifs(const struct nlmsghdr *nlh, int *oifs, int max);
/* The links of this netns into *out (free() it), default_route set only
 * if routes.  0 or -errno. */
int rfsd_netns_links(struct rfsd_link **out, size_t *n, bool routes);
/* Detach prog_fd from ifindex in the netns known here as nsid.  0 or
 * -errno: -ENOENT when no named namespace nor process holds it, -EACCES
 * when none rfsd may read does and it lacks CAP_SYS_PTRACE. */
int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic);

/*
 * Which section attaches l: the one naming it, else the first pattern
 * section whose words pick it.  NULL to attach with *ic, or why not
 * (*ic then names the pattern that picked it, or is NULL: none did).  A
 * pattern never picks an excluded, loopback or non-Ethernet link.
 */
const char *rfsd_config_match(const struct rfsd_config *cfg,
			      const struct rfsd_link *l,
			      const struct rfsd_iface_cfg **ic);
bool rfsd_config_wants_routes(const struct rfsd_config *cfg);

/* rfsd --check-config: what the config at path would attach in this netns
 * and with what, what it picks but skips and why, as text or JSON on
 * stdout; attaches nothing.  The exit code: 0 if all is well. */
int rfsd_check_config(const char *path, bool must_exist, bool unsafe_noguard,
		      bool json);

/*
 * The config applied to the datapath (ifaces.c), and what rfsd knows of
 * each interface beyond it: detached by rfsctl, waiting to appear, lost
 * to another tool.  Link events (netlink.c) and the commands report here.
 */
struct json_object;
struct rfs_dp;

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
	struct rfsd_ifstate *st;	/* malloc()ed */
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

#endif /* RFSD_CONFIG_H */
