// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP socket refused a datagram (its receive buffer is full): mark its
 * flow in rfs_sock_full, so that rfs_xdp drops the flow's next frames at
 * the RX CPU instead of sending them to a target that would build an skb
 * for the socket to refuse (rfs_full_drops), and note the refusal in
 * this CPU's queue slot, so that its cpumap program drops those of the
 * flow's frames that were already on its ring (rfs_full_recent).  Runs
 * on the CPU that delivers to the socket, only on a refusal.
 *
 * Only the tracepoint's first two arguments, which every kernel has
 * (6.10 added the skb): the flow is the connected socket's own 4-tuple,
 * hashed as the socket hooks hash it.  An unconnected socket has no one
 * flow and is not marked.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "rfs_sock.bpf.h"

SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(rfs_sock_full_mark, int rc, struct sock *sk)
{
	struct rfs_flow_key key = {};
	struct rfs_cpu_queue *q;
	struct rfs_globals *g;
	__u32 hash, idx, now;
	__u64 *slot, mark;

	g = rfs_get_globals();
	if (!g || !g->early_drop_jiffies || rfs_sock_key(sk, &key, true))
		return 0;
	hash = rfs_flow_hash(&key, g->hash_seed);
	idx = rfs_full_index(hash);
	slot = bpf_map_lookup_elem(&rfs_sock_full, &idx);
	if (!slot)
		return 0;
	/* refusals come in runs: write the line once per jiffy, not per
	 * datagram, so the RX CPUs reading it keep their copy */
	now = (__u32)bpf_jiffies64() ?: 1;	/* 0 is "never" */
	mark = rfs_full_mark(hash, now);
	if (RFS_READ_ONCE(*slot) != mark)
		RFS_WRITE_ONCE(*slot, mark);
	/* after the mark; an RX CPU that sees the jiffy before the mark
	 * (stores are not ordered everywhere) only misses a drop */
	if (RFS_READ_ONCE(g->full_jiffy) != now)
		RFS_WRITE_ONCE(g->full_jiffy, now);
	/* this CPU's slot, read by its own kthread: a local line */
	idx = bpf_get_smp_processor_id();
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &idx);
	if (q && q->refused != now)
		q->refused = now;
	return 0;
}
