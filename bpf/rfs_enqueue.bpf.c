// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_cpumap_enqueue fires on the RX CPU each time its bulk queue for a
 * target has been flushed into the target's ring (once per NAPI poll and
 * target, or per 8 frames), with the number of frames that found the ring
 * full.  Those are counted here: ring drops are what an operator must see
 * first when a target CPU can't keep up.  The in-order rule needs nothing
 * from this hook (a lost frame is passed by the next one, rfs_order.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rfs_common.h"
#include "rfs_maps.bpf.h"

SEC("tp_btf/xdp_cpumap_enqueue")
int BPF_PROG(rfs_enqueue, int map_id, unsigned int processed,
	     unsigned int drops, int to_cpu)
{
	struct rfs_global_stats *gs;
	struct rfs_globals *g;

	if (!drops)
		return 0;
	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	gs = rfs_get_gstats();
	if (gs)
		gs->enqueue_drops += drops;
	return 0;
}
