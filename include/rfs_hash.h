/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow hash, shared by the XDP program (which sees src=peer, dst=local)
 * and the socket-side programs (which see local, remote).  Both fill a
 * struct rfs_flow_key by role, not by direction, so both get the same hash.
 * Pure: no helpers, no libc, builds for BPF and host.
 */
#ifndef RFS_HASH_H
#define RFS_HASH_H

#include "rfs_common.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Addresses in network byte order as they sit in the headers; an IPv4
 * address goes in word 0 with words 1..3 zero.  Ports in host order. */
struct rfs_flow_key {
	__u32 local[4];
	__u32 peer[4];
	__u16 local_port;
	__u16 peer_port;
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u8 is_v6;
	__u16 _pad;
};

#define RFS_KEY_WORDS	10

static __always_inline __u32 rfs_rotl32(__u32 x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/* One word into MurmurHash3 (x86, 32-bit)'s state. */
static __always_inline __u32 rfs_murmur3_mix(__u32 h, __u32 k)
{
	k *= 0xcc9e2d51;
	k = rfs_rotl32(k, 15);
	k *= 0x1b873593;
	h ^= k;
	h = rfs_rotl32(h, 13);
	return h * 5 + 0xe6546b64;
}

/* MurmurHash3's finish over a state that took len bytes. */
static __always_inline __u32 rfs_murmur3_fmix(__u32 h, __u32 len)
{
	h ^= len;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/*
 * MurmurHash3 (x86, 32-bit) of n little-endian 32-bit words.  Equal to the
 * reference murmur3_32 of the same 4n bytes on a little-endian host, so the
 * published test vectors apply.  Chosen for cost: two multiplies a word, no
 * tables, and a seed, so flows can't be aimed at one slot.
 */
static __always_inline __u32 rfs_murmur3_words(const __u32 *w, int n,
					       __u32 seed)
{
	__u32 h = seed;
	int i;

	for (i = 0; i < n; i++)
		h = rfs_murmur3_mix(h, w[i]);
	return rfs_murmur3_fmix(h, (__u32)n * 4);
}

/*
 * rfs_murmur3_words() of an IPv4 key's 4 words (local, peer, ports,
 * protocol) or an IPv6 key's 10: a large part of rfs_xdp's own cost per
 * frame, and IPv4 is most of the traffic.  The words go straight from
 * the key into the rounds, written out: as a loop over an array, the
 * compiler shares one loop between the two lengths, which keeps the words
 * on the BPF stack and branches per word.  A v6 key also mixes is_v6 into
 * its last word.
 */
static __always_inline __u32 rfs_flow_hash(const struct rfs_flow_key *k,
					   __u32 seed)
{
	__u32 ports = ((__u32)k->local_port << 16) | k->peer_port;
	__u32 h;

	if (!k->is_v6) {
		h = rfs_murmur3_mix(seed, k->local[0]);
		h = rfs_murmur3_mix(h, k->peer[0]);
		h = rfs_murmur3_mix(h, ports);
		h = rfs_murmur3_mix(h, k->proto);
		return rfs_murmur3_fmix(h, 4 * 4);
	}
	h = rfs_murmur3_mix(seed, k->local[0]);
	h = rfs_murmur3_mix(h, k->local[1]);
	h = rfs_murmur3_mix(h, k->local[2]);
	h = rfs_murmur3_mix(h, k->local[3]);
	h = rfs_murmur3_mix(h, k->peer[0]);
	h = rfs_murmur3_mix(h, k->peer[1]);
	h = rfs_murmur3_mix(h, k->peer[2]);
	h = rfs_murmur3_mix(h, k->peer[3]);
	h = rfs_murmur3_mix(h, ports);
	h = rfs_murmur3_mix(h, (1u << 8) | k->proto);
	return rfs_murmur3_fmix(h, RFS_KEY_WORDS * 4);
}

/* ::ffff:a.b.c.d, in network byte order words. */
static __always_inline int rfs_addr_is_v4mapped(const __u32 a[4])
{
	/* 0x0000ffff in network order, read as a host word (either endian) */
	const __u8 ffff[4] = { 0, 0, 0xff, 0xff };
	__u32 marker;

	__builtin_memcpy(&marker, ffff, 4);
	return a[0] == 0 && a[1] == 0 && a[2] == marker;
}

/*
 * A dual-stack socket serving an IPv4 client carries v4-mapped addresses;
 * its frames on the wire are plain IPv4.  Fold such a key to IPv4 so both
 * sides hash alike.  Only when both ends are mapped: a v6 flow stays v6.
 */
static __always_inline void rfs_flow_key_normalise(struct rfs_flow_key *k)
{
	if (!k->is_v6 || !rfs_addr_is_v4mapped(k->local) ||
	    !rfs_addr_is_v4mapped(k->peer))
		return;
	k->local[0] = k->local[3];
	k->peer[0] = k->peer[3];
	k->local[1] = k->local[2] = k->local[3] = 0;
	k->peer[1] = k->peer[2] = k->peer[3] = 0;
	k->is_v6 = 0;
}

/*
 * A loopback flow (peer in 127.0.0.0/8 or ::1): its frames never cross an
 * interface but lo, so unless lo itself is steered a record of it could
 * only take a sock flow slot from a flow that is.  Whole words, compared
 * with constants laid out in network byte order (either host endianness;
 * byte loads could be forwarded to a sockops context, which the verifier
 * refuses).
 */
static __always_inline int rfs_flow_key_loopback(const struct rfs_flow_key *k)
{
	const __u8 net8[4] = { 0xff, 0, 0, 0 }, lo8[4] = { 127, 0, 0, 0 };
	const __u8 one[4] = { 0, 0, 0, 1 };
	__u32 mask, val;

	if (!k->is_v6) {
		__builtin_memcpy(&mask, net8, 4);
		__builtin_memcpy(&val, lo8, 4);
		return (k->peer[0] & mask) == val;
	}
	__builtin_memcpy(&val, one, 4);
	return !k->peer[0] && !k->peer[1] && !k->peer[2] && k->peer[3] == val;
}

#endif /* RFS_HASH_H */
