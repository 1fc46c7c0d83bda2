// SPDX-License-Identifier: GPL-2.0
/*
 * Delivery barrier for cpumap kthreads that run GRO (Linux 6.15 and
 * later).  The kthread dequeues frames, runs our cpumap program on them
 * (head++), feeds the skbs to GRO, and flushes GRO only every 64 packets
 * or when its ring runs empty.  In between, dequeued segments are held,
 * and a flow moved to another CPU could overtake them.  So the in-order
 * rule waits for done, and done is raised only where this CPU's kthread
 * is between batches with nothing held in its GRO node: then every frame
 * counted in head has been handed to the stack.
 *
 * Two such points, both tracepoints (kprobes and fentry are not available
 * everywhere we run):
 *  - xdp_cpumap_kthread, once per batch, after the batch ran through our
 *    cpumap program but before it enters GRO: done = head - processed;
 *  - sched_switch away from the kthread: it is about to sleep on an empty
 *    ring (after a full flush) or is being preempted between batches:
 *    done = head.  Without this a lone flow would wait for a next batch
 *    that only its own next frame can bring, and never move.
 * Both check the GRO node itself, so a preemption that leaves segments
 * held raises nothing.  The kthread's bpf_cpu_map_entry is its kthread
 * data; the first tracepoint learns it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rfs_common.h"
#include "rfs_maps.bpf.h"

static __always_inline bool rfs_gro_idle(__u64 rcpu_addr)
{
	struct bpf_cpu_map_entry *rcpu = (void *)rcpu_addr;

	return !BPF_CORE_READ(rcpu, gro.bitmask) &&
	       !BPF_CORE_READ(rcpu, gro.rx_count);
}

SEC("tp_btf/xdp_cpumap_kthread")
int BPF_PROG(rfs_kthread_batch, int map_id, unsigned int processed,
	     unsigned int drops, int sched, struct xdp_cpumap_stats *xs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpf_cpu_map_entry *rcpu;
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	struct kthread *kt;

	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (!q)
		return 0;
	if (q->flush_task != (__u64)task) {
		kt = BPF_CORE_READ(task, worker_private);
		rcpu = BPF_CORE_READ(kt, data);
		if (BPF_CORE_READ(rcpu, kthread) != task ||
		    BPF_CORE_READ(rcpu, cpu) != cpu)
			return 0;
		q->flush_gro = (__u64)rcpu;
		q->flush_task = (__u64)task;
	}
	if (rfs_gro_idle(q->flush_gro))
		RFS_WRITE_ONCE(q->done, q->head - processed);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rfs_kthread_sleep, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct rfs_cpu_queue *q;

	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (!q || q->flush_task != (__u64)prev)
		return 0;
	if (rfs_gro_idle(q->flush_gro))
		RFS_WRITE_ONCE(q->done, q->head);
	return 0;
}
