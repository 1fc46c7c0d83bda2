/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd.conf, an INI file (inih):
 *
 *	[global]
 *	sock_flow_entries = 32768
 *	socket = /run/rfs/rfsd.sock
 *	pin_dir = /sys/fs/bpf/rfs
 *	cgroup = /sys/fs/cgroup
 *	detach_on_exit = no
 *	allow_unordered = no
 *
 *	[interface eth1]
 *	cpus = 0-3,6
 *	flow_cnt = 4096
 *	mode = auto
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

struct rfsd_iface_cfg {
	char name[IF_NAMESIZE];
	struct rfs_cpuset cpus;		/* empty: every online CPU */
	__u32 flow_cnt;			/* 0: RFS_FLOW_CNT_DEFAULT */
	enum rfs_xdp_mode mode;
	unsigned int set;		/* RFSD_SET_* seen, for duplicates */
};

struct rfsd_config {
	__u32 sock_flow_entries;	/* 0: not set */
	char *socket;			/* NULL: not set */
	char *pin_dir;
	char *cgroup;
	/* SIGTERM detaches and unpins everything; default: leave the
	 * datapath steering for the next rfsd to adopt */
	bool detach_on_exit;
	/* attach even on a kernel where flows can't be kept in order
	 * (rfs_dp_kjudge()); default: refuse */
	bool allow_unordered;
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
const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name);

#endif /* RFSD_CONFIG_H */
