// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in each CPU's cpumap kthread on every frame it dequeues, before the
 * skb is built: advances that CPU's head counter.  Where the kernel's
 * cpumap has no GRO stage, a dequeued frame is delivered before the next
 * one is dequeued, so done follows head here; otherwise rfs_gro.bpf.c
 * advances done at each full GRO flush.  Only this CPU writes its slot's
 * consumer line, so no atomic is needed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"
#include "rfs_maps.bpf.h"

/* Set by rfsd before load: true when rfs_gro.bpf.c tracks delivery. */
const volatile bool rfs_gro_barrier = false;

SEC("xdp/cpumap")
int rfs_cpumap(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct rfs_global_stats *gs;
	struct rfs_cpu_queue *q;

	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (q) {
		__u32 head = q->head + 1;

		RFS_WRITE_ONCE(q->head, head);
		if (!rfs_gro_barrier)
			RFS_WRITE_ONCE(q->done, head);
	}
	gs = rfs_get_gstats();
	if (gs)
		gs->dequeued++;
	return XDP_PASS;
}
