// SPDX-License-Identifier: GPL-2.0
/*
 * The delivery proof (include/rfs_order.h): once per batch of a cpumap
 * kthread, after our cpumap program ran on the batch and before the batch
 * enters GRO, look at the kthread's GRO node (Linux 6.15+) and advance the
 * target's delivered epoch as far as it proves, then start the next
 * epoch.  It runs only for cpumap batches (our map's), never per task
 * switch or for traffic xdp-rfs does not steer.  The kthread's
 * bpf_cpu_map_entry is its kthread data; the first batch learns it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rfs_common.h"
#include "rfs_order.h"
#include "rfs_maps.bpf.h"

#define RFS_GRO_BUCKETS	8

/*
 * The kthread's entry and GRO node are kernel memory no BTF pointer
 * leads to (the entry is the kthread's void *data), read through one of
 * two ways.  Where the kernel has bpf_rdonly_cast (6.2+) the pointer is
 * cast to its type and read with plain loads, which the verifier makes
 * fault-safe reads in line; elsewhere (its weak extern is then 0 and the
 * verifier drops that code) with bpf_probe_read_kernel, a helper call
 * per field: 4 per batch at least, most of this program's cost.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

#define RFS_CAST(type, p)						\
	((type *)bpf_rdonly_cast((void *)(p),				\
				 bpf_core_type_id_kernel(type)))

/* READ(p, a.b...): p->a.b through the cast, or a probe read. */
#define RFS_KREAD(type, p, ...)						\
	(bpf_rdonly_cast ? RFS_CAST(type, p)->__VA_ARGS__ :		\
			   BPF_CORE_READ((type *)(p), __VA_ARGS__))

/* The jiffy the oldest skb held in this GRO bucket was first held: new
 * skbs go to the head of a bucket's list, so its tail is the oldest. */
static __always_inline __u64 rfs_bucket_oldest(struct bpf_cpu_map_entry *rcpu,
					       int i)
{
	void *skb, *cb;

	skb = RFS_KREAD(struct bpf_cpu_map_entry, rcpu, gro.hash[i].list.prev);
	if (!skb)
		return 0;
	cb = skb + bpf_core_field_offset(struct sk_buff, cb);
	return RFS_KREAD(struct napi_gro_cb, cb, age);
}

static __always_inline void rfs_gro_view(struct bpf_cpu_map_entry *rcpu,
					 struct rfs_gro_view *v)
{
	__u64 age;
	int i;

	v->has_gro = bpf_core_field_exists(rcpu->gro);
	if (!v->has_gro)
		return;
	v->rx_count = RFS_KREAD(struct bpf_cpu_map_entry, rcpu, gro.rx_count);
	v->bitmask = RFS_KREAD(struct bpf_cpu_map_entry, rcpu, gro.bitmask);
	if (v->rx_count || !v->bitmask)
		return;
#pragma unroll
	for (i = 0; i < RFS_GRO_BUCKETS; i++) {
		if (!(v->bitmask & (1ULL << i)))
			continue;
		age = rfs_bucket_oldest(rcpu, i);
		if (age)
			rfs_gro_view_age(v, age);
	}
}

SEC("tp_btf/xdp_cpumap_kthread")
int BPF_PROG(rfs_kthread_batch, int map_id, unsigned int processed,
	     unsigned int drops, int sched, struct xdp_cpumap_stats *xs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct rfs_gro_view view = {};
	struct bpf_cpu_map_entry *rcpu;
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	__u32 cpu, delivered, pid;
	struct kthread *kt;
	__u64 now;

	g = rfs_get_globals();
	if (!g || g->cpumap_id != (__u32)map_id)
		return 0;
	/* A kthread runs on its own CPU while that CPU is online, and its
	 * entry was learnt by an earlier batch: two reads confirm it is
	 * still that entry (a freed one would not name this kthread and
	 * CPU).  Otherwise (first batch, entry remade, CPU offline: the
	 * kthread runs elsewhere) the entry is found from the task. */
	cpu = bpf_get_smp_processor_id();
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	if (!q)
		return 0;
	rcpu = (struct bpf_cpu_map_entry *)q->rcpu;
	if (!rcpu ||
	    RFS_KREAD(struct bpf_cpu_map_entry, rcpu, kthread) != task ||
	    RFS_KREAD(struct bpf_cpu_map_entry, rcpu, cpu) != cpu) {
		kt = task->worker_private;	/* trusted (tp_btf) */
		rcpu = RFS_KREAD(struct kthread, kt, data);
		if (!rcpu ||
		    RFS_KREAD(struct bpf_cpu_map_entry, rcpu, kthread) != task)
			return 0;
		cpu = RFS_KREAD(struct bpf_cpu_map_entry, rcpu, cpu);
		q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
		if (!q)
			return 0;
		if (q->rcpu != (__u64)rcpu)
			q->rcpu = (__u64)rcpu;
	}
	/* for rfsd's cpumap_kthread_sched; written only when the kthread
	 * was remade (CPU online, cpumap resized), not per batch */
	pid = task->pid;	/* trusted (tp_btf): a plain load */
	if (q->kthread_pid != pid)
		q->kthread_pid = pid;
	rfs_gro_view(rcpu, &view);
	now = bpf_jiffies64();
	q->jiffy = (__u32)now;
	if (!rfs_delivered_epoch(q->hist, &view, q->epoch, now, &delivered))
		return 0;
	if (rfs_seq_after_eq(delivered, q->delivered) &&
	    delivered != q->delivered)
		RFS_WRITE_ONCE(q->delivered, delivered);
	/* A new epoch only at a proof (rfs_order.h, EPOCHS). */
	RFS_WRITE_ONCE(q->epoch, q->epoch + 1);
	return 0;
}
