// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_cpumap_enqueue fires on the RX CPU each time its bulk queue for a
 * target has been flushed into the target's ring (once per NAPI poll and
 * target, or per 8 frames), with the number of frames that found the ring
 * full.  Those are counted here: ring drops are what an operator must see
 * first when a target CPU can't keep up.  The in-order rule needs nothing
 * from this hook (a lost frame is passed by the next one, rfs_order.h);
 * rfsd's "still in flight" check does (below).
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
	struct rfs_tx_seq *tx;
	__u32 zero = 0;

	if (!drops)
		return 0;
	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	gs = rfs_get_gstats();
	if (gs)
		gs->enqueue_drops += drops;
	/* Every frame numbered so far for to_cpu is in its ring, dropped,
	 * or (flushed before being added) still in this CPU's bulk queue
	 * until the poll ends.  rfsd counts a flow whose last frame is
	 * covered as not in flight once the target has slept long enough
	 * for that queue to be gone: a lost last frame then holds up no
	 * CPU removal for ever (rfs_devtab.c). */
	tx = bpf_map_lookup_elem(&rfs_tx_seq, &zero);
	if (tx)
		tx->dropped_upto[to_cpu & (RFS_MAX_CPUS - 1)] =
			tx->seq[to_cpu & (RFS_MAX_CPUS - 1)];
	return 0;
}
