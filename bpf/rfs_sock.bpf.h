/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket side: record the CPU an application runs on when it reads or
 * writes a connected TCP/UDP socket, under the same hash the XDP program
 * computes for that connection's incoming frames.
 */
#ifndef RFS_SOCK_BPF_H
#define RFS_SOCK_BPF_H

#include <bpf/bpf_core_read.h>

#include "rfs_common.h"
#include "rfs_decide.h"
#include "rfs_hash.h"
#include "rfs_maps.bpf.h"


/*
 * Read a socket field.  tp_btf hands us a trusted struct sock pointer:
 * plain loads (CO-RE relocated through vmlinux.h), a few ns each.  A
 * kprobe's pointer is untrusted and needs bpf_probe_read_kernel() per
 * field, several times the cost; trusted is a constant, so each program
 * keeps only its own branch.
 */
#define RFS_SK(trusted, sk, field) \
	((trusted) ? (sk)->field : BPF_CORE_READ(sk, field))

/* Fill the key from a socket; 0 if it is a connected TCP/UDP socket. */
static __always_inline int rfs_sock_key(struct sock *sk, struct rfs_flow_key *k,
					const bool trusted)
{
	__u16 family = RFS_SK(trusted, sk, __sk_common.skc_family);
	__u16 proto = RFS_SK(trusted, sk, sk_protocol);

	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return -1;
	/* A closed TCP socket has given its port back: a recv (EOF) or send
	 * (EPIPE) after close would record a flow that no longer exists
	 * over a live one in the same slot. */
	if (RFS_SK(trusted, sk, __sk_common.skc_state) == RFS_TCP_CLOSE)
		return -1;
	k->proto = proto;
	k->local_port = RFS_SK(trusted, sk, __sk_common.skc_num);
	k->peer_port = bpf_ntohs(RFS_SK(trusted, sk, __sk_common.skc_dport));
	if (!k->peer_port || !k->local_port)
		return -1;	/* unconnected: no single flow to steer */
	if (family == RFS_AF_INET) {
		k->local[0] = RFS_SK(trusted, sk, __sk_common.skc_rcv_saddr);
		k->peer[0] = RFS_SK(trusted, sk, __sk_common.skc_daddr);
		return 0;
	}
	if (family != RFS_AF_INET6)
		return -1;
	if (trusted) {
		__builtin_memcpy(k->local, &sk->__sk_common.skc_v6_rcv_saddr, 16);
		__builtin_memcpy(k->peer, &sk->__sk_common.skc_v6_daddr, 16);
	} else {
		BPF_CORE_READ_INTO(&k->local, sk, __sk_common.skc_v6_rcv_saddr);
		BPF_CORE_READ_INTO(&k->peer, sk, __sk_common.skc_v6_daddr);
	}
	k->is_v6 = 1;
	rfs_flow_key_normalise(k);
	return 0;
}

/* A UDP socket's read or write that finds its buffer at most half full
 * ends the flow's early-drop mark (rfs_full_released): the frames it has
 * room for again should reach it rather than wait out the window.  Only
 * where sk is trusted: kprobe hosts let the mark expire. */
static __always_inline void rfs_full_release(struct sock *sk, __u32 hash)
{
	__u32 idx = rfs_full_index(hash);
	__u64 *slot = bpf_map_lookup_elem(&rfs_sock_full, &idx);

	if (slot && rfs_full_released(RFS_READ_ONCE(*slot), hash,
				      sk->sk_backlog.rmem_alloc.counter,
				      sk->sk_rcvbuf))
		RFS_WRITE_ONCE(*slot, 0);
}

/*
 * An unconnected UDP socket has no flow of its own: the flows its
 * refusals marked (rfs_sock_full_mark, from the refused datagrams) are
 * kept with the socket, the latest RFS_FULL_SOCK_FLOWS of them, so that
 * its reads can end their marks as a connected socket's reads end its
 * one.  The marks of flows beyond those expire by themselves.  A hash of
 * 0 is an empty entry (such a flow's mark only expires); a kept hash
 * whose slot no longer holds its mark is left, the rule checks the tag.
 */
#define RFS_FULL_SOCK_FLOWS	8
struct rfs_full_flows {
	__u32 hash[RFS_FULL_SOCK_FLOWS];
	__u32 next;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rfs_full_flows);
} rfs_full_socks SEC(".maps") __weak;

/* A read or write of an unconnected UDP socket ends the marks of the
 * flows it refused as a connected socket's ends its one
 * (rfs_full_release).  Only while some refusal is recent enough for a
 * mark to be live, and only where sk is trusted (socket storage). */
static __always_inline void rfs_full_release_flows(struct sock *sk,
						   const struct rfs_globals *g)
{
	struct rfs_full_flows *ff;
	int i;

	if (!rfs_full_any(RFS_READ_ONCE(g->full_jiffy),
			  (__u32)bpf_jiffies64(), g->early_drop_jiffies))
		return;
	ff = bpf_sk_storage_get(&rfs_full_socks, sk, NULL, 0);
	if (!ff)
		return;
#pragma unroll
	for (i = 0; i < RFS_FULL_SOCK_FLOWS; i++)
		if (ff->hash[i])
			rfs_full_release(sk, ff->hash[i]);
}

/* Keep a flow an unconnected socket refused among its marked flows.
 * The refusing CPU and the reader write the list unlocked: an update
 * one of them loses only leaves a mark to expire. */
static __always_inline void rfs_full_keep_flow(struct sock *sk, __u32 hash)
{
	struct rfs_full_flows *ff;
	int i;

	if (!hash)
		return;
	ff = bpf_sk_storage_get(&rfs_full_socks, sk, NULL,
				BPF_SK_STORAGE_GET_F_CREATE);
	if (!ff)
		return;
#pragma unroll
	for (i = 0; i < RFS_FULL_SOCK_FLOWS; i++)
		if (ff->hash[i] == hash)
			return;
	ff->hash[ff->next & (RFS_FULL_SOCK_FLOWS - 1)] = hash;
	ff->next++;
}

/* Write this CPU into the flow's slot, only when it changes: a read-mostly
 * slot stays in every CPU's cache.  The counters are touched only off the
 * common path (nothing to write). */
static __always_inline void rfs_record_sock(struct sock *sk, const bool trusted)
{
	struct rfs_flow_key key = {};
	struct rfs_global_stats *gs;
	rfs_sock_entry_t *slot, want;
	struct rfs_globals *g;
	__u32 hash;

	g = rfs_get_globals();
	if (!g)
		return;
	if (rfs_sock_key(sk, &key, trusted) ||
	    (!g->steer_loopback && rfs_flow_key_loopback(&key))) {
		if (trusted && g->early_drop_jiffies &&
		    sk->sk_protocol == IPPROTO_UDP)
			rfs_full_release_flows(sk, g);
		gs = rfs_get_gstats();
		if (gs)
			gs->sock_skipped++;
		return;
	}
	hash = rfs_flow_hash(&key, g->hash_seed);
	if (trusted && key.proto == IPPROTO_UDP && g->early_drop_jiffies)
		rfs_full_release(sk, hash);
	slot = rfs_sock_slot(g, hash);
	if (!slot)
		return;
	want = rfs_sock_entry_make(hash, bpf_get_smp_processor_id(),
				   g->cpu_mask);
	if (*slot == want)
		return;
	*slot = want;
	gs = rfs_get_gstats();
	if (gs)
		gs->sock_records++;
}

/*
 * A send needs no record when the socket's frames already arrive on the
 * CPU the application sends from (sk_incoming_cpu, kept by the kernel
 * per socket): the table can only move them away from here, and the
 * next recv records wherever the application reads.  One load instead
 * of a key, a hash and two map lookups; in request/response traffic the
 * reply is sent where the request was read, so this is the common case.
 * Receives always record: the reader's CPU is what the table holds (a
 * recv that skipped when frames land here by hash would leave the table
 * empty for a flow sitting on its application's CPU: counted as spread,
 * not steered to the application, and explained as "no socket
 * recorded one").
 */
static __always_inline int rfs_frames_land_here(struct sock *sk,
						const bool trusted)
{
	int incoming = RFS_SK(trusted, sk, __sk_common.skc_incoming_cpu);

	return incoming >= 0 &&
	       (__u32)incoming == bpf_get_smp_processor_id();
}

/* Count a recv that returned data as local or remote (see
 * rfs_global_stats.recv_local): the kernel keeps the CPU that processed
 * the socket's last incoming frame in sk_incoming_cpu. */
static __always_inline void rfs_count_locality(struct sock *sk,
					       const bool trusted)
{
	int incoming = RFS_SK(trusted, sk, __sk_common.skc_incoming_cpu);
	struct rfs_global_stats *gs;

	if (incoming < 0)
		return;
	gs = rfs_get_gstats();
	if (!gs)
		return;
	if ((__u32)incoming == bpf_get_smp_processor_id())
		gs->recv_local++;
	else
		gs->recv_remote++;
}

#endif /* RFS_SOCK_BPF_H */
