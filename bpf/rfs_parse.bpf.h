/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frame parsing for the XDP programs (rfs_xdp; rfs_cpumap for early drop
 * on the target): Ethernet, up to two VLAN tags
 * (802.1Q / 802.1ad), IPv4 or IPv6 (skipping hop-by-hop, routing and
 * destination options), then the TCP or UDP ports.  Fills the flow key by
 * role: the frame's destination is the local end.
 */
#ifndef RFS_PARSE_BPF_H
#define RFS_PARSE_BPF_H

#include <bpf/bpf_endian.h>

#include "rfs_hash.h"

#define RFS_ETH_P_IP		0x0800
#define RFS_ETH_P_IPV6		0x86DD
#define RFS_ETH_P_8021Q		0x8100
#define RFS_ETH_P_8021AD	0x88A8
#define RFS_IP_MF		0x2000
#define RFS_IP_OFFSET		0x1FFF
#define RFS_NEXTHDR_HOP		0
#define RFS_NEXTHDR_ROUTING	43
#define RFS_NEXTHDR_FRAGMENT	44
#define RFS_NEXTHDR_DEST	60
#define RFS_MAX_VLAN		2
#define RFS_MAX_V6_EXT		3

enum rfs_parse_result {
	RFS_PARSE_OK,
	RFS_PARSE_NOT_IP,
	RFS_PARSE_FRAGMENT,
	RFS_PARSE_OTHER_PROTO,
	RFS_PARSE_TRUNCATED,
};

struct rfs_vlan_hdr {
	__be16 tci;
	__be16 proto;
};

static __always_inline int rfs_parse_ports(void *l4, void *end,
					   struct rfs_flow_key *k)
{
	/* TCP and UDP both start with source and destination port. */
	__be16 *ports = l4;

	if ((void *)(ports + 2) > end)
		return RFS_PARSE_TRUNCATED;
	k->peer_port = bpf_ntohs(ports[0]);
	k->local_port = bpf_ntohs(ports[1]);
	return RFS_PARSE_OK;
}

static __always_inline int rfs_parse_v4(void *l3, void *end,
					struct rfs_flow_key *k)
{
	struct iphdr *ip = l3;
	__u32 ihl;

	if ((void *)(ip + 1) > end)
		return RFS_PARSE_TRUNCATED;
	ihl = ip->ihl * 4;
	if (ihl < sizeof(*ip))
		return RFS_PARSE_TRUNCATED;
	if (ip->frag_off & bpf_htons(RFS_IP_MF | RFS_IP_OFFSET))
		return RFS_PARSE_FRAGMENT;
	if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
		return RFS_PARSE_OTHER_PROTO;
	k->proto = ip->protocol;
	k->peer[0] = ip->saddr;
	k->local[0] = ip->daddr;
	return rfs_parse_ports(l3 + ihl, end, k);
}

static __always_inline int rfs_parse_v6(void *l3, void *end,
					struct rfs_flow_key *k)
{
	struct ipv6hdr *ip6 = l3;
	void *next = ip6 + 1;
	__u8 nexthdr;
	int i;

	if (next > end)
		return RFS_PARSE_TRUNCATED;
	nexthdr = ip6->nexthdr;
	__builtin_memcpy(k->peer, &ip6->saddr, 16);
	__builtin_memcpy(k->local, &ip6->daddr, 16);
	k->is_v6 = 1;

#pragma unroll
	for (i = 0; i < RFS_MAX_V6_EXT; i++) {
		struct ipv6_opt_hdr *opt = next;

		if (nexthdr != RFS_NEXTHDR_HOP && nexthdr != RFS_NEXTHDR_ROUTING &&
		    nexthdr != RFS_NEXTHDR_DEST)
			break;
		if ((void *)(opt + 1) > end)
			return RFS_PARSE_TRUNCATED;
		nexthdr = opt->nexthdr;
		next += (opt->hdrlen + 1) * 8;
	}
	if (nexthdr == RFS_NEXTHDR_FRAGMENT)
		return RFS_PARSE_FRAGMENT;
	if (nexthdr != IPPROTO_TCP && nexthdr != IPPROTO_UDP)
		return RFS_PARSE_OTHER_PROTO;
	k->proto = nexthdr;
	return rfs_parse_ports(next, end, k);
}

static __always_inline int rfs_parse_frame(void *data, void *end,
					   struct rfs_flow_key *k)
{
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__be16 proto;
	int i;

	if (l3 > end)
		return RFS_PARSE_TRUNCATED;
	proto = eth->h_proto;

#pragma unroll
	for (i = 0; i < RFS_MAX_VLAN; i++) {
		struct rfs_vlan_hdr *vh = l3;

		if (proto != bpf_htons(RFS_ETH_P_8021Q) &&
		    proto != bpf_htons(RFS_ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > end)
			return RFS_PARSE_TRUNCATED;
		proto = vh->proto;
		l3 = vh + 1;
	}
	if (proto == bpf_htons(RFS_ETH_P_IP))
		return rfs_parse_v4(l3, end, k);
	if (proto == bpf_htons(RFS_ETH_P_IPV6))
		return rfs_parse_v6(l3, end, k);
	return RFS_PARSE_NOT_IP;
}

#endif /* RFS_PARSE_BPF_H */
