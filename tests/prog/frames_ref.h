/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rfs_xdp must make of any bytes, written from the rules in the
 * header comment of bpf/rfs_parse.bpf.h rather than from its code: a
 * reference parser for the packet fuzzer (test_xdp_fuzz.c), and IPv6
 * frames with extension header chains, which frames.h does not build.
 *
 * The rules: Ethernet; at most two VLAN tags (802.1Q or 802.1ad); IPv4
 * with IHL >= 5 and neither MF nor an offset, or IPv6 skipping at most
 * three hop-by-hop, routing or destination-options headers (a fourth is
 * "another protocol"; a fragment header is a fragment); then TCP or UDP
 * and its two ports.  Total length and payload length are not read: the
 * stack checks them after the frame is steered, and a frame whose ports
 * are in the buffer is steered under them.
 */
#ifndef RFS_TEST_FRAMES_REF_H
#define RFS_TEST_FRAMES_REF_H

#include "frames.h"

#define RFS_FR_REF_MAX		1024	/* the largest frame built here */

/* The reference parser's outcomes; rfs_if_stats names each pass. */
enum rfs_fr_ref_class {
	RFS_FR_REF_OK,
	RFS_FR_REF_NOT_IP,
	RFS_FR_REF_FRAGMENT,
	RFS_FR_REF_OTHER_PROTO,
	RFS_FR_REF_TRUNCATED,
};

static const char *const rfs_fr_ref_name[] = {
	"parsed", "not IP", "fragment", "other protocol", "truncated",
};

static inline __u16 rfs_fr_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline int rfs_fr_ref_ports(const __u8 *p, size_t len, size_t l4,
			struct rfs_flow_key *k)
{
	if (l4 + 4 > len)
		return RFS_FR_REF_TRUNCATED;
	k->peer_port = rfs_fr_get16(p + l4);
	k->local_port = rfs_fr_get16(p + l4 + 2);
	return RFS_FR_REF_OK;
}

static inline int rfs_fr_ref_v4(const __u8 *p, size_t len, size_t l3,
			 struct rfs_flow_key *k)
{
	size_t ihl;

	if (l3 + 20 > len)
		return RFS_FR_REF_TRUNCATED;
	ihl = (p[l3] & 0x0f) * 4u;
	if (ihl < 20)
		return RFS_FR_REF_TRUNCATED;
	if (rfs_fr_get16(p + l3 + 6) & (RFS_FR_IP_MF | 0x1fff))
		return RFS_FR_REF_FRAGMENT;
	if (p[l3 + 9] != IPPROTO_TCP && p[l3 + 9] != IPPROTO_UDP)
		return RFS_FR_REF_OTHER_PROTO;
	k->proto = p[l3 + 9];
	memcpy(&k->peer[0], p + l3 + 12, 4);
	memcpy(&k->local[0], p + l3 + 16, 4);
	return rfs_fr_ref_ports(p, len, l3 + ihl, k);
}

static inline bool rfs_fr_ref_skipped(__u8 nh)
{
	return nh == 0 || nh == 43 || nh == 60;	/* hop, routing, dest */
}

static inline int rfs_fr_ref_v6(const __u8 *p, size_t len, size_t l3,
			 struct rfs_flow_key *k)
{
	size_t next = l3 + 40;
	__u8 nh;
	int i;

	if (next > len)
		return RFS_FR_REF_TRUNCATED;
	nh = p[l3 + 6];
	memcpy(k->peer, p + l3 + 8, 16);
	memcpy(k->local, p + l3 + 24, 16);
	k->is_v6 = 1;
	/* three at most: a fourth is "another protocol" */
	for (i = 0; i < 3 && rfs_fr_ref_skipped(nh); i++) {
		if (next + 2 > len)
			return RFS_FR_REF_TRUNCATED;
		nh = p[next];
		next += (p[next + 1] + 1u) * 8;
	}
	if (nh == RFS_FR_NEXTHDR_FRAG)
		return RFS_FR_REF_FRAGMENT;
	if (nh != IPPROTO_TCP && nh != IPPROTO_UDP)
		return RFS_FR_REF_OTHER_PROTO;
	k->proto = nh;
	return rfs_fr_ref_ports(p, len, next, k);
}

static inline int rfs_fr_ref(const __u8 *p, size_t len, struct rfs_flow_key *k)
{
	size_t l3 = 14;
	__u16 type;
	int i;

	memset(k, 0, sizeof(*k));
	if (len < 14)
		return RFS_FR_REF_TRUNCATED;
	type = rfs_fr_get16(p + 12);
	for (i = 0; i < 2 && (type == RFS_FR_ETH_P_8021Q ||
			      type == RFS_FR_ETH_P_8021AD); i++) {
		if (l3 + 4 > len)
			return RFS_FR_REF_TRUNCATED;
		type = rfs_fr_get16(p + l3 + 2);
		l3 += 4;
	}
	if (type == RFS_FR_ETH_P_IP)
		return rfs_fr_ref_v4(p, len, l3, k);
	if (type == RFS_FR_ETH_P_IPV6)
		return rfs_fr_ref_v6(p, len, l3, k);
	return RFS_FR_REF_NOT_IP;
}

/*
 * f (IPv6) built into buf (RFS_FR_REF_MAX bytes) with a chain of n
 * extension headers in front of its L4 header: types[i], each (lens[i] +
 * 1) * 8 bytes, except a fragment header (8 bytes, offset/flags field
 * frag_off); the payload length kept right.  f's opts and v6_frag are
 * ignored.  Returns the length; key gets the frame's flow key.
 */
static inline size_t rfs_frame_v6_chain(const struct rfs_frame *f,
					const __u8 *types, const __u8 *lens,
					int n, __u16 frag_off, __u8 *buf,
					struct rfs_flow_key *key)
{
	struct rfs_frame_layout lay;
	size_t len, at, chain = 0, sz;
	__u8 *ip;
	int i;

	struct rfs_frame plain = *f;

	plain.opts = 0;
	plain.v6_frag = 0;
	len = rfs_frame_build(&plain, buf, &lay);
	rfs_frame_key(&plain, key);
	for (i = 0; i < n; i++)
		chain += types[i] == RFS_FR_NEXTHDR_FRAG ? 8 : (lens[i] + 1u) * 8;
	if (len + chain > RFS_FR_REF_MAX)
		return 0;
	memmove(buf + lay.l4 + chain, buf + lay.l4, len - lay.l4);
	ip = buf + lay.l3;
	at = lay.l4;
	ip[6] = n ? types[0] : f->proto;
	for (i = 0; i < n; i++) {
		sz = types[i] == RFS_FR_NEXTHDR_FRAG ? 8 : (lens[i] + 1u) * 8;
		memset(buf + at, 0, sz);
		buf[at] = i + 1 < n ? types[i + 1] : f->proto;
		if (types[i] == RFS_FR_NEXTHDR_FRAG) {
			rfs_fr_put16(buf + at + 2, frag_off);
		} else {
			buf[at + 1] = lens[i];
			buf[at + 2] = 1;		/* PadN */
			buf[at + 3] = sz - 4;
		}
		at += sz;
	}
	rfs_fr_put16(ip + 4, rfs_fr_get16(ip + 4) + chain);
	return len + chain;
}

#endif /* RFS_TEST_FRAMES_REF_H */
