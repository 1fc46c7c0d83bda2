/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interface's configuration map and its reader, rfs_xdp's own (each
 * interface's program has its own rfs_if_cfg); also built into the
 * layout probe of tests/prog, which reads where its values really start.
 */
#ifndef RFS_IF_CFG_BPF_H
#define RFS_IF_CFG_BPF_H

#include "rfs_common.h"
#include "rfs_maps.bpf.h"	/* RFS_READ_ONCE */

/* Two slots; slot 0's active_slot names the one in use: slot 0, except
 * while rfsd changes the configuration (rfs_common.h).  Mmapable so that
 * the slots start on cache lines: a frame reads two of its slot's. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RFS_IF_CFG_SLOTS);
	__type(key, __u32);
	__type(value, struct rfs_if_config);
} rfs_if_cfg SEC(".maps");

/* The configuration in use: read its slot number once, then only it. */
static __always_inline struct rfs_if_config *rfs_if_config(void)
{
	struct rfs_if_config *c0;
	__u32 zero = 0, slot;

	c0 = bpf_map_lookup_elem(&rfs_if_cfg, &zero);
	if (!c0)
		return NULL;
	slot = RFS_READ_ONCE(c0->active_slot);
	if (!slot)
		return c0;
	slot = 1;
	return bpf_map_lookup_elem(&rfs_if_cfg, &slot);
}

#endif /* RFS_IF_CFG_BPF_H */
