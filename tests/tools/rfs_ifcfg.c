// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_ifcfg: read, or change one __u32 field of, an interface's pinned
 * rfs_if_cfg map (struct rfs_if_config, include/rfs_common.h), for tests
 * that need a knob rfsd does not offer: the noguard control run of
 * tests/integration/test_order.sh.
 *
 *   rfs_ifcfg MAP                print the __u32 fields, "name value" lines
 *   rfs_ifcfg MAP FIELD VALUE    set FIELD, read it back, print it
 *
 * MAP is the pinned map, <pin dir>/<layout>/if/<ifname>/rfs_if_cfg.  Raw
 * bpf(2) calls, no libbpf: tests/tools are built without libraries.  The
 * map's value size must equal sizeof(struct rfs_if_config) as this tool
 * was built, else it refuses (a stale tool would write the wrong bytes).
 * The map has two slots; slot 0's active_slot names the one the program
 * reads (rfs_common.h), and this tool reads and writes that one, in
 * place: one __u32 changes, which a frame sees whole.  rfsd writes the
 * other slot when the interface's settings change (set cpus, set
 * flow-cnt, flows), which puts rfsd's own values back.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rfs_common.h"

#define RFS_IFCFG_FIELD(f) { #f, offsetof(struct rfs_if_config, f) }
static const struct {
	const char *name;
	size_t off;
} rfs_ifcfg_fields[] = {
	RFS_IFCFG_FIELD(flow_mask),
	RFS_IFCFG_FIELD(rx_queues),
	RFS_IFCFG_FIELD(n_allowed),
	RFS_IFCFG_FIELD(sample_flows),
	RFS_IFCFG_FIELD(local_path),
	RFS_IFCFG_FIELD(local_handover),
	RFS_IFCFG_FIELD(local_drain_jiffies),
	RFS_IFCFG_FIELD(noguard),
	RFS_IFCFG_FIELD(xdp_mode),
};
#define RFS_IFCFG_NFIELDS \
	(sizeof(rfs_ifcfg_fields) / sizeof(rfs_ifcfg_fields[0]))

static long rfs_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int rfs_ifcfg_open(const char *path)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (__u64)(unsigned long)path;
	fd = rfs_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0) {
		fprintf(stderr, "rfs_ifcfg: can't open map '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (rfs_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "rfs_ifcfg: can't get map info of '%s': %s\n",
			path, strerror(errno));
		close(fd);
		return -1;
	}
	if (info.key_size != 4 ||
	    info.value_size != sizeof(struct rfs_if_config)) {
		fprintf(stderr,
			"rfs_ifcfg: map '%s' has key/value size %u/%u, this tool expects 4/%zu: rebuild it\n",
			path, info.key_size, info.value_size,
			sizeof(struct rfs_if_config));
		close(fd);
		return -1;
	}
	return fd;
}

static int rfs_ifcfg_rw(int fd, int cmd, __u32 slot,
			struct rfs_if_config *cfg)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (__u64)(unsigned long)&slot;
	attr.value = (__u64)(unsigned long)cfg;
	if (cmd == BPF_MAP_UPDATE_ELEM)
		attr.flags = BPF_EXIST;
	if (rfs_bpf(cmd, &attr)) {
		fprintf(stderr, "rfs_ifcfg: can't %s the config: %s\n",
			cmd == BPF_MAP_UPDATE_ELEM ? "write" : "read",
			strerror(errno));
		return -1;
	}
	return 0;
}

static __u32 *rfs_ifcfg_at(struct rfs_if_config *cfg, size_t i)
{
	return (__u32 *)((char *)cfg + rfs_ifcfg_fields[i].off);
}

int main(int argc, char **argv)
{
	struct rfs_if_config cfg;
	unsigned long v;
	__u32 slot = 0;
	char *end;
	size_t i;
	int fd;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: rfs_ifcfg MAP [FIELD VALUE]\n");
		return 2;
	}
	fd = rfs_ifcfg_open(argv[1]);
	if (fd < 0 || rfs_ifcfg_rw(fd, BPF_MAP_LOOKUP_ELEM, 0, &cfg))
		return 1;
	if (cfg.active_slot) {
		slot = 1;
		if (rfs_ifcfg_rw(fd, BPF_MAP_LOOKUP_ELEM, slot, &cfg))
			return 1;
	}
	if (argc == 2) {
		for (i = 0; i < RFS_IFCFG_NFIELDS; i++)
			printf("%s %u\n", rfs_ifcfg_fields[i].name,
			       *rfs_ifcfg_at(&cfg, i));
		return 0;
	}
	for (i = 0; i < RFS_IFCFG_NFIELDS; i++)
		if (!strcmp(argv[2], rfs_ifcfg_fields[i].name))
			break;
	if (i == RFS_IFCFG_NFIELDS) {
		fprintf(stderr, "rfs_ifcfg: no field '%s'\n", argv[2]);
		return 2;
	}
	errno = 0;
	v = strtoul(argv[3], &end, 0);
	if (errno || end == argv[3] || *end || v > 0xffffffffUL) {
		fprintf(stderr, "rfs_ifcfg: '%s' is not a __u32\n", argv[3]);
		return 2;
	}
	*rfs_ifcfg_at(&cfg, i) = (__u32)v;
	if (rfs_ifcfg_rw(fd, BPF_MAP_UPDATE_ELEM, slot, &cfg) ||
	    rfs_ifcfg_rw(fd, BPF_MAP_LOOKUP_ELEM, slot, &cfg))
		return 1;
	printf("%s %u\n", rfs_ifcfg_fields[i].name, *rfs_ifcfg_at(&cfg, i));
	return *rfs_ifcfg_at(&cfg, i) == (__u32)v ? 0 : 1;
}
