/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small frame builder for the BPF_PROG_TEST_RUN tests: Ethernet, up to
 * two VLAN tags (802.1Q, or 802.1ad outer + 802.1Q inner), IPv4 (with or
 * without 8 bytes of options) or IPv6 (with or without a hop-by-hop header,
 * optionally a fragment header), then TCP, UDP or an 8-byte stand-in for
 * any other protocol.  It also gives the flow key the XDP program must
 * build from the frame, and where each header starts, so a test can cut
 * the frame at every header boundary.
 *
 * Checksums are filled in for IPv4 only: the XDP program reads none, and
 * live frames are addressed to a MAC nobody owns, so the stack drops them.
 */
#ifndef RFS_TEST_FRAMES_H
#define RFS_TEST_FRAMES_H

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* rfs_hash.h asks clang to unroll ("#pragma unroll"); gcc does not know
 * the pragma and -Werror would reject it.  Same result either way. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "rfs_hash.h"
#pragma GCC diagnostic pop

#define RFS_FR_ETH_P_IP		0x0800
#define RFS_FR_ETH_P_ARP	0x0806
#define RFS_FR_ETH_P_8021Q	0x8100
#define RFS_FR_ETH_P_IPV6	0x86DD
#define RFS_FR_ETH_P_8021AD	0x88A8
#define RFS_FR_ETH_P_LLDP	0x88CC
#define RFS_FR_IP_MF		0x2000
#define RFS_FR_NEXTHDR_HOP	0
#define RFS_FR_NEXTHDR_FRAG	44
#define RFS_FR_MAX		512

struct rfs_frame {
	__u8 vlans;		/* 0; 1: 802.1Q; 2: 802.1ad + 802.1Q */
	__u8 v6;
	__u8 opts;		/* v4: 8 bytes of options; v6: hop-by-hop */
	__u8 v6_frag;		/* v6: a fragment header before L4 */
	__u16 v6_frag_off;	/* its offset/flags field, host order */
	__u16 ethertype;	/* nonzero: this L3 type, body = payload only */
	__u16 frag_off;		/* v4 frag_off, host order: MF | offset */
	__u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP, anything else */
	__u32 saddr[4];		/* network order; v4 in word 0 */
	__u32 daddr[4];
	__u16 sport;		/* host order */
	__u16 dport;
	__u16 payload;		/* bytes after the L4 header */
};

/* Offsets in the built frame: a test cuts it at each of them. */
struct rfs_frame_layout {
	size_t len;
	size_t l3;		/* after Ethernet and tags */
	size_t l4;		/* after IP, options and extension headers */
	size_t ports_end;	/* l4 + 4: the last byte the parser needs */
};

static inline void rfs_frame_v4(struct rfs_frame *f, __u8 proto,
				const char *src, __u16 sport,
				const char *dst, __u16 dport)
{
	memset(f, 0, sizeof(*f));
	f->proto = proto;
	inet_pton(AF_INET, src, &f->saddr[0]);
	inet_pton(AF_INET, dst, &f->daddr[0]);
	f->sport = sport;
	f->dport = dport;
	f->payload = 16;
}

static inline void rfs_frame_v6(struct rfs_frame *f, __u8 proto,
				const char *src, __u16 sport,
				const char *dst, __u16 dport)
{
	memset(f, 0, sizeof(*f));
	f->v6 = 1;
	f->proto = proto;
	inet_pton(AF_INET6, src, f->saddr);
	inet_pton(AF_INET6, dst, f->daddr);
	f->sport = sport;
	f->dport = dport;
	f->payload = 16;
}

static inline void rfs_fr_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline __u16 rfs_fr_csum(const __u8 *p, size_t len)
{
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Build f into buf (at least RFS_FR_MAX bytes); returns the length. */
static inline size_t rfs_frame_build(const struct rfs_frame *f, __u8 *buf,
				     struct rfs_frame_layout *lay)
{
	static const __u8 dst_mac[6] = { 0x02, 0x52, 0x46, 0x53, 0x00, 0x02 };
	static const __u8 src_mac[6] = { 0x02, 0x52, 0x46, 0x53, 0x00, 0x01 };
	size_t off = 12, l3, l4, l4_len, ip_len, i;
	__u16 type = f->ethertype ? f->ethertype :
		     f->v6 ? RFS_FR_ETH_P_IPV6 : RFS_FR_ETH_P_IP;
	__u8 *ip, *p;

	memset(buf, 0, RFS_FR_MAX);
	memcpy(buf, dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	if (f->vlans == 2) {
		rfs_fr_put16(buf + off, RFS_FR_ETH_P_8021AD);
		rfs_fr_put16(buf + off + 2, 200);
		off += 4;
	}
	if (f->vlans >= 1) {
		rfs_fr_put16(buf + off, RFS_FR_ETH_P_8021Q);
		rfs_fr_put16(buf + off + 2, 100);
		off += 4;
	}
	rfs_fr_put16(buf + off, type);
	l3 = off + 2;
	lay->l3 = l3;

	l4_len = f->proto == IPPROTO_TCP ? 20 : 8;
	if (f->ethertype) {
		/* Not IP: just a body (an ARP request is 28 bytes). */
		for (i = 0; i < 28u + f->payload; i++)
			buf[l3 + i] = i * 7;
		lay->l4 = lay->ports_end = l3;
		lay->len = l3 + 28 + f->payload;
		return lay->len;
	}

	ip = buf + l3;
	if (!f->v6) {
		size_t ihl = f->opts ? 28 : 20;

		ip_len = ihl + l4_len + f->payload;
		ip[0] = 0x40 | (ihl / 4);
		rfs_fr_put16(ip + 2, ip_len);
		rfs_fr_put16(ip + 4, 0x1234);
		rfs_fr_put16(ip + 6, f->frag_off);
		ip[8] = 64;
		ip[9] = f->proto;
		memcpy(ip + 12, &f->saddr[0], 4);
		memcpy(ip + 16, &f->daddr[0], 4);
		if (f->opts) {
			/* Router Alert, then NOPs and an End of options */
			ip[20] = 0x94;
			ip[21] = 4;
			ip[24] = ip[25] = ip[26] = 1;
			ip[27] = 0;
		}
		rfs_fr_put16(ip + 10, rfs_fr_csum(ip, ihl));
		l4 = l3 + ihl;
	} else {
		__u8 next = f->proto;

		ip_len = 40 + (f->opts ? 8 : 0) + (f->v6_frag ? 8 : 0) +
			 l4_len + f->payload;
		ip[0] = 0x60;
		rfs_fr_put16(ip + 4, ip_len - 40);
		ip[7] = 64;
		memcpy(ip + 8, f->saddr, 16);
		memcpy(ip + 24, f->daddr, 16);
		p = ip + 40;
		if (f->opts) {
			/* hop-by-hop, hdrlen 0 (8 bytes): one PadN of 4 */
			ip[6] = RFS_FR_NEXTHDR_HOP;
			p[0] = f->v6_frag ? RFS_FR_NEXTHDR_FRAG : next;
			p[1] = 0;
			p[2] = 1;
			p[3] = 4;
			p += 8;
		} else {
			ip[6] = f->v6_frag ? RFS_FR_NEXTHDR_FRAG : next;
		}
		if (f->v6_frag) {
			p[0] = next;
			rfs_fr_put16(p + 2, f->v6_frag_off);
			p[4] = 0xab;
			p += 8;
		}
		l4 = p - buf;
	}

	p = buf + l4;
	rfs_fr_put16(p, f->sport);
	rfs_fr_put16(p + 2, f->dport);
	if (f->proto == IPPROTO_TCP) {
		p[12] = 5 << 4;
		p[13] = 0x10;		/* ACK */
		rfs_fr_put16(p + 14, 65535);
	} else if (f->proto == IPPROTO_UDP) {
		rfs_fr_put16(p + 4, l4_len + f->payload);
	} else {
		/* ICMP-like: the "ports" are type/code/checksum */
		p[0] = 8;
	}
	for (i = 0; i < f->payload; i++)
		p[l4_len + i] = 'a' + i % 26;
	lay->l4 = l4;
	lay->ports_end = l4 + 4;
	lay->len = l4 + l4_len + f->payload;
	return lay->len;
}

/* The key the XDP program builds from f: the frame's destination is the
 * local end. */
static inline void rfs_frame_key(const struct rfs_frame *f,
				 struct rfs_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->local, f->daddr, f->v6 ? 16 : 4);
	memcpy(k->peer, f->saddr, f->v6 ? 16 : 4);
	k->local_port = f->dport;
	k->peer_port = f->sport;
	k->proto = f->proto;
	k->is_v6 = f->v6;
}

#endif /* RFS_TEST_FRAMES_H */
