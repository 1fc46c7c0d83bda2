// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in a target CPU's cpumap kthread on every frame it dequeues, before
 * the skb is built and before GRO.  A marked frame is marked dequeued in
 * the target's rfs_rx_track row for the RX CPU that sent it (include/
 * rfs_order.h), and loses the metadata rfs_xdp put in front of it (GRO
 * will not merge skbs whose metadata differ, and nothing after us should
 * see ours).  A bare frame (no metadata: LAZY MARKS) is only counted: its
 * mark comes with a later frame.  Only the target's kthread writes its
 * row and queue slot.  While a socket on this CPU refused a datagram
 * moments ago, frames of refused flows are dropped here (early drop on
 * the target, rfs_full_recent).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"
#include "rfs_order.h"
#include "rfs_maps.bpf.h"
#include "rfs_parse.bpf.h"

/*
 * A frame of a flow whose socket on this CPU refused a datagram moments
 * ago: dropped before an skb is built for the socket to refuse (its RX
 * CPU drops the flow's later frames; these were on the ring already).
 * Called after the frame's mark: a frame dropped once dequeued can't
 * arrive late, so the in-order rule counts it as it counts a delivered
 * one.  Parses and hashes the frame only while the refusal is recent.
 */
static __always_inline int rfs_cpumap_verdict(struct xdp_md *ctx,
					      const struct rfs_cpu_queue *q)
{
	struct rfs_flow_key key = {};
	struct rfs_global_stats *gs;
	struct rfs_globals *g;
	__u32 window;

	if (!q->refused)
		return XDP_PASS;
	g = rfs_get_globals();
	if (!g)
		return XDP_PASS;
	window = RFS_READ_ONCE(g->early_drop_jiffies);
	if (!rfs_full_recent(q->refused, q->jiffy, window) ||
	    rfs_parse_frame((void *)(long)ctx->data,
			    (void *)(long)ctx->data_end, &key) != RFS_PARSE_OK ||
	    !rfs_flow_full(rfs_flow_hash(&key, g->hash_seed),
			   (__u32)bpf_jiffies64(), window))
		return XDP_PASS;
	gs = rfs_get_gstats();
	if (gs)
		gs->early_drop_target++;
	return XDP_DROP;
}

SEC("xdp/cpumap")
int rfs_cpumap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	struct rfs_frame_meta *meta = (void *)(long)ctx->data_meta;
	struct rfs_rx_track *tr, t;
	struct rfs_frame_meta m;
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	__u32 cpu, idx;
	__u64 task;

	if ((void *)meta >= data) {
		/* Bare: its metadata is not read, nothing of it is marked.
		 * Counted in this CPU's slot, where its kthread runs while
		 * the CPU is online (a count, not a mark: while it is
		 * offline another slot may take it). */
		cpu = bpf_get_smp_processor_id();
		q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
		if (!q)
			return XDP_PASS;
		q->dequeued++;
		return rfs_cpumap_verdict(ctx, q);
	}
	if ((void *)(meta + 1) > data || meta->magic != RFS_META_MAGIC) {
		struct rfs_global_stats *gs = rfs_get_gstats();

		if (gs)
			gs->foreign++;
		return XDP_PASS;
	}
	m = *meta;
	bpf_xdp_adjust_meta(ctx, sizeof(m));

	/* The target from the frame, not this CPU: while its CPU is offline
	 * the kthread runs elsewhere, and its slot must stay its own. */
	cpu = m.cpu;
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	g = rfs_get_globals();
	if (!q || !g)
		return XDP_PASS;
	idx = rfs_rx_track_index(cpu, m.rx_cpu, g->nr_rx_cpus);
	tr = bpf_map_lookup_elem(&rfs_rx_track, &idx);
	if (!tr)
		return XDP_PASS;
	/* Before the mark: a reader that sees the mark sees this kthread. */
	task = bpf_get_current_task();
	if (q->kthread != task)
		RFS_WRITE_ONCE(q->kthread, task);
	t = rfs_track_dequeued(*tr, m.seq, q->epoch, q->delivered, q->jiffy);
	/* older marks before newer ones: a reader never sees a mark roll
	 * away before its successor is in place */
	if (t.done != tr->done)
		RFS_WRITE_ONCE(tr->done, t.done);
	if (t.jiffy2 != tr->jiffy2)
		RFS_WRITE_ONCE(tr->jiffy2, t.jiffy2);
	if (t.jiffy1 != tr->jiffy1)
		RFS_WRITE_ONCE(tr->jiffy1, t.jiffy1);
	if (t.prev != tr->prev)
		RFS_WRITE_ONCE(tr->prev, t.prev);
	RFS_WRITE_ONCE(tr->last, t.last);
	tr->jiffy = t.jiffy;
	q->dequeued++;
	return rfs_cpumap_verdict(ctx, q);
}
