// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_cpumap_enqueue fires when a CPU's bulk queue is flushed into a
 * target CPU's ring, with the number of frames that did not fit.  Those
 * frames are never dequeued, so without counting them the target's head
 * would never reach the tail of a flow that lost one, and the flow could
 * never move again.
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
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	__u32 cpu = to_cpu;

	if (!drops)
		return 0;
	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (q)
		__sync_fetch_and_add(&q->drops, drops);
	gs = rfs_get_gstats();
	if (gs)
		gs->enqueue_drops += drops;
	return 0;
}
