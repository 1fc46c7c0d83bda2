// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in a target CPU's cpumap kthread on every frame it dequeues, before
 * the skb is built and before GRO.  A marked frame is marked dequeued in
 * the target's rfs_rx_track row for the RX CPU that sent it (include/
 * rfs_order.h), and loses the metadata rfs_xdp put in front of it (GRO
 * will not merge skbs whose metadata differ, and nothing after us should
 * see ours).  A bare frame (no metadata: LAZY MARKS) is only counted: its
 * mark comes with a later frame.  Only the target's kthread writes its
 * row and queue slot.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"
#include "rfs_order.h"
#include "rfs_maps.bpf.h"

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
		if (q)
			q->dequeued++;
		return XDP_PASS;
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
	return XDP_PASS;
}
