// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP socket refused a datagram (its receive buffer is full): mark the
 * datagram's flow in rfs_sock_full, so that rfs_xdp drops the flow's next
 * frames at the RX CPU instead of sending them to a target that would
 * build an skb for the socket to refuse (rfs_full_drops), and note the
 * refusal in this CPU's queue slot, so that its cpumap program drops
 * those of the flow's frames that were already on its ring
 * (rfs_full_recent).  Runs on the CPU that delivers to the socket, only
 * on a refusal.
 *
 * Where the tracepoint passes the refused skb (6.10 on), the flow is read
 * from its headers, by role as rfs_xdp reads a frame: an unconnected
 * socket's flows are marked too, and kept with the socket for its reads
 * to end (rfs_full_keep_flow).  Before that only its first two arguments
 * exist: the flow is a connected socket's own 4-tuple, hashed as the
 * socket hooks hash it, and an unconnected socket is not marked.  rfsd
 * loads one of the two programs (autoload).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "rfs_sock.bpf.h"

#define RFS_IP_VERSION(b)	((b) >> 4)

/* The flow of a received UDP skb, as rfs_parse_frame reads its frame:
 * the destination is the local end.  -1 if it is not IPv4 or IPv6. */
static __always_inline int rfs_skb_key(struct sk_buff *skb,
				       struct rfs_flow_key *k)
{
	__u16 nh = skb->network_header, th = skb->transport_header;
	struct ipv6hdr ip6;
	struct iphdr ip;
	__be16 ports[2];
	__u64 head;
	__u8 b;

	/* the head as a number: header offsets are added to it */
	if (bpf_probe_read_kernel(&head, sizeof(head), &skb->head) ||
	    bpf_probe_read_kernel(&b, sizeof(b), (void *)(head + nh)))
		return -1;
	if (RFS_IP_VERSION(b) == 4) {
		if (bpf_probe_read_kernel(&ip, sizeof(ip), (void *)(head + nh)))
			return -1;
		k->peer[0] = ip.saddr;
		k->local[0] = ip.daddr;
	} else if (RFS_IP_VERSION(b) == 6) {
		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), (void *)(head + nh)))
			return -1;
		__builtin_memcpy(k->peer, &ip6.saddr, 16);
		__builtin_memcpy(k->local, &ip6.daddr, 16);
		k->is_v6 = 1;
	} else {
		return -1;
	}
	if (bpf_probe_read_kernel(ports, sizeof(ports), (void *)(head + th)))
		return -1;
	k->proto = IPPROTO_UDP;
	k->peer_port = bpf_ntohs(ports[0]);
	k->local_port = bpf_ntohs(ports[1]);
	return 0;
}

/* Mark the flow, note the refusal (early drop is on: the callers
 * checked); 0 when there is no slot to mark. */
static __always_inline int rfs_full_note(struct rfs_globals *g, __u32 hash)
{
	struct rfs_cpu_queue *q;
	__u64 *slot, mark;
	__u32 idx, now;

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
	return 1;
}

SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(rfs_sock_full_mark, int rc, struct sock *sk, struct sk_buff *skb)
{
	struct rfs_flow_key key = {};
	struct rfs_globals *g;
	__u32 hash;

	/* UDP-Lite shares the tracepoint; rfs_xdp steers no such frame */
	if (sk->sk_protocol != IPPROTO_UDP)
		return 0;
	g = rfs_get_globals();
	if (!g || !g->early_drop_jiffies || rfs_skb_key(skb, &key))
		return 0;
	hash = rfs_flow_hash(&key, g->hash_seed);
	if (rfs_full_note(g, hash) && !sk->__sk_common.skc_dport)
		rfs_full_keep_flow(sk, hash);
	return 0;
}

SEC("tp_btf/udp_fail_queue_rcv_skb")
int BPF_PROG(rfs_sock_full_conn, int rc, struct sock *sk)
{
	struct rfs_flow_key key = {};
	struct rfs_globals *g;

	g = rfs_get_globals();
	if (!g || !g->early_drop_jiffies || rfs_sock_key(sk, &key, true))
		return 0;
	rfs_full_note(g, rfs_flow_hash(&key, g->hash_seed));
	return 0;
}
