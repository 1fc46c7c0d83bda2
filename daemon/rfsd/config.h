/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd.conf, an INI file (inih):
 *
 *	[global]
 *	sock_flow_entries = 32768
 *	socket = /run/rfs/rfsd.sock
 *	socket_group = rfs
 *	admin_group = rfs-admin
 *	table_budget_iface = 256M
 *	table_budget_total = 1G
 *	pin_dir = /sys/fs/bpf/rfs
 *	cgroup = /sys/fs/cgroup
 *	detach_on_exit = no
 *	metrics_listen = 127.0.0.1:9464
 *	cpumap_kthread_sched = default
 *	allow_unordered = no
 *	leaving_warn_seconds = 10
 *
 *	[interface eth1]
 *	cpus = 0-3,6
 *	flow_cnt = 4096
 *	mode = auto
 *	noguard = no		(yes: benchmarks only, needs --unsafe-noguard)
 *
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

#include "cpulist.h"
#include "rfs_common.h"

#define RFSD_CONFIG_DEFAULT	"/etc/rfs/rfsd.conf"
#define RFSD_CONFIG_ERR_LEN	512

/* A drain normally takes a ring's latency plus a GRO flush, well under a
 * second: ten seconds is far past any flow that leaves gaps, and short
 * enough for an operator waiting on a removal. */
#define RFSD_LEAVING_WARN_DEFAULT	10
#define RFSD_LEAVING_WARN_MAX		86400

struct rfsd_iface_cfg {
	char name[IF_NAMESIZE];
	struct rfs_cpuset cpus;		/* empty: every online CPU */
	__u32 flow_cnt;			/* 0: RFS_FLOW_CNT_DEFAULT */
	enum rfs_xdp_mode mode;
	/* the in-order rule off: honoured only under --unsafe-noguard */
	bool noguard;
	unsigned int set;		/* RFSD_SET_* seen, for duplicates */
};

/* cpumap_kthread_sched: what rfsd does to the scheduling of its cpumap
 * kthreads (ksched.c).  kernel leaves them as the kernel made them
 * (SCHED_OTHER, nice 0), which EEVDF can keep off their CPU for hundreds
 * of milliseconds while tasks there wake each other (README, Known
 * limits); so the default is SCHED_FIFO 1, which preempts tasks the way
 * kernel RFS's softirq does. */
enum rfsd_ksched_kind {
	RFSD_KSCHED_KERNEL,
	RFSD_KSCHED_NICE,		/* SCHED_OTHER at nice prio */
	RFSD_KSCHED_FIFO,		/* SCHED_FIFO at rt priority prio */
	RFSD_KSCHED_BATCH,		/* SCHED_BATCH at nice prio */
};

#define RFSD_KSCHED_NICE_MIN	(-20)
#define RFSD_KSCHED_NICE_MAX	19
#define RFSD_KSCHED_FIFO_MIN	1
#define RFSD_KSCHED_FIFO_MAX	99
/* without the key, and for "default" */
#define RFSD_KSCHED_DEFAULT \
	((struct rfsd_ksched){ .kind = RFSD_KSCHED_FIFO, .prio = 1 })

struct rfsd_ksched {
	enum rfsd_ksched_kind kind;
	int prio;
};

struct rfsd_config {
	__u32 sock_flow_entries;	/* 0: not set */
	char *socket;			/* NULL: not set */
	/* who may read (the socket file's group) and who may change too
	 * (peercred.h); NULL: RFS_CTL_GROUP, RFSD_ADMIN_GROUP */
	char *socket_group;
	char *admin_group;
	/* flow table budgets in bytes (rfs_budget.h); 0: from MemTotal */
	__u64 budget_iface;
	__u64 budget_total;
	char *pin_dir;
	char *cgroup;
	/* SIGTERM detaches and unpins everything; default: leave the
	 * datapath steering for the next rfsd to adopt */
	bool detach_on_exit;
	/* "127.0.0.1:9464", "[::1]:9464": serve /metrics there; NULL: off */
	char *metrics_listen;
	struct rfsd_ksched ksched;	/* cpumap_kthread_sched */
	/* attach even on a kernel where flows can't be kept in order
	 * (rfs_dp_kjudge()); default: refuse */
	bool allow_unordered;
	/* warn when a CPU taken out of an interface's set still waits for
	 * its flows to drain after this long (then each time the wait
	 * doubles); 0: never.  Read through rfsd_config_leaving_warn_s(). */
	__u32 leaving_warn_s;
	unsigned int set;
	struct rfsd_iface_cfg *ifs;
	size_t n_ifs;
};

/* Parse path into cfg (which is zeroed first).  A missing file gives an
 * empty config unless must_exist.  0 or -errno with the reason in err
 * ("can't parse config '/etc/rfs/rfsd.conf:7': unknown key 'x' in [global]"). */
int rfsd_config_load(const char *path, bool must_exist,
		     struct rfsd_config *cfg, char *err);
/* The same from f, already open (path only names it in messages): what
 * rfsd_config_load() does once the file is open, and what the fuzz target
 * tests/fuzz/fuzz_config.c feeds from memory. */
int rfsd_config_parse(FILE *f, const char *path, struct rfsd_config *cfg,
		      char *err);
void rfsd_config_free(struct rfsd_config *cfg);
/* 0, or -EPERM with the reason in err when an interface asks for noguard
 * and rfsd was not started with --unsafe-noguard (path names the file). */
int rfsd_config_check_noguard(const struct rfsd_config *cfg, const char *path,
			      bool unsafe_noguard, char *err);
/* A cpumap_kthread_sched value: "default" (RFSD_KSCHED_DEFAULT), "kernel",
 * "nice:N" or "batch:N" (-20..19), or "fifo:N" (1..99).  0; -EINVAL if it is none of those forms or N is not a number
 * (an optional '-' on nice, then digits), -ERANGE if N is out of range. */
int rfsd_ksched_parse(const char *v, struct rfsd_ksched *out);
/* The value back as the config spells it: "kernel", "nice:-5", "fifo:1". */
void rfsd_ksched_name(const struct rfsd_ksched *k, char *buf, size_t len);
/* leaving_warn_seconds as in effect: the default when not set. */
__u32 rfsd_config_leaving_warn_s(const struct rfsd_config *cfg);
const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name);

#endif /* RFSD_CONFIG_H */
