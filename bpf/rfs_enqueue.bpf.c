// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_cpumap_enqueue fires on the producer CPU when its bulk queue for a
 * target CPU has been flushed into that target's ring, with the number of
 * frames that did not fit.  Two things follow: nothing from this CPU is
 * waiting in that bulk queue any more, and the dropped frames will never
 * be dequeued, so no flow may wait for them (they are taken off the
 * last_tail of flows enqueued after this).
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
	struct rfs_producer *prod;
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	__u32 cpu = to_cpu;

	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	/* The whole bulk queue went out: reset rather than subtract, so a
	 * frame that never made it into the queue can't hold flows forever. */
	prod = rfs_get_producer();
	if (prod)
		prod->unflushed[cpu & (RFS_MAX_CPUS - 1)] = 0;
	if (!drops)
		return 0;
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (q)
		__sync_fetch_and_add(&q->drops, drops);
	gs = rfs_get_gstats();
	if (gs)
		gs->enqueue_drops += drops;
	return 0;
}
