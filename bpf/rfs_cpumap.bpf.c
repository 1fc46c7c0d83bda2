// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in each CPU's cpumap kthread on every frame it dequeues, before the
 * skb is built: advances that CPU's head counter, which the XDP program
 * compares with a flow's last tail to know the flow's frames have left the
 * queue.  Only this CPU writes its head, so no atomic is needed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"
#include "rfs_maps.bpf.h"

SEC("xdp/cpumap")
int rfs_cpumap(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct rfs_global_stats *gs;
	struct rfs_cpu_queue *q;

	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (q)
		*(volatile __u32 *)&q->head = q->head + 1;
	gs = rfs_get_gstats();
	if (gs)
		gs->dequeued++;
	return XDP_PASS;
}
