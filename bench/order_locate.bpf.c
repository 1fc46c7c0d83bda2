// SPDX-License-Identifier: GPL-2.0
/*
 * Where does a TCP stream lose its order: before the XDP hook, or between
 * the hook and the target's cpumap dequeue?  An XDP program that redirects
 * every frame to one CPU's cpumap (as the bench's bare redirect) and a
 * cpumap program on that CPU, each checking the TCP sequence numbers of
 * the data segments it sees against the highest one it has seen.  For one
 * bulk stream at a time (bench/order_locate.sh); no xdp-rfs in the path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define LOC_ETH_P_IP	0x0800

const volatile __u32 loc_target_cpu = 1;

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} loc_cpumap SEC(".maps");

/* One writer each: the ingress counts in the interface's NAPI (one poll
 * at a time), the dequeue counts in one kthread.  Scalars, not a struct:
 * bpftool 7.1's skeleton can't size a struct in .bss. */
__u64 ingress_segments, ingress_behind, ingress_rx_cpu_changes;
__u32 ingress_highest, ingress_seen_any, ingress_last_rx_cpu;
__u64 dequeue_segments, dequeue_behind;
__u32 dequeue_highest, dequeue_seen_any;

/* The sequence number and payload length of an IPv4 TCP segment. */
static __always_inline int loc_tcp_seq(void *data, void *end, __u32 *seq,
				       __u32 *len)
{
	struct ethhdr *eth = data;
	struct tcphdr *th;
	struct iphdr *ip;

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(LOC_ETH_P_IP))
		return -1;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP ||
	    ip->ihl != 5)
		return -1;
	th = (void *)(ip + 1);
	if ((void *)(th + 1) > end)
		return -1;
	*seq = bpf_ntohl(th->seq);
	*len = bpf_ntohs(ip->tot_len) - sizeof(*ip) - th->doff * 4;
	return 0;
}

/* Count a data segment with sequence number seq, and whether it arrived
 * behind the highest one seen before it. */
static __always_inline void loc_check(__u64 *segments, __u64 *behind,
				      __u32 *highest, __u32 *seen_any, __u32 seq)
{
	(*segments)++;
	if (*seen_any && (__s32)(seq - *highest) < 0) {
		(*behind)++;
		return;
	}
	*highest = seq;
	*seen_any = 1;
}

SEC("xdp")
int loc_ingress(struct xdp_md *ctx)
{
	__u32 seq, len, cpu = bpf_get_smp_processor_id() + 1;

	if (!loc_tcp_seq((void *)(long)ctx->data, (void *)(long)ctx->data_end,
			 &seq, &len) && len) {
		loc_check(&ingress_segments, &ingress_behind, &ingress_highest,
			  &ingress_seen_any, seq);
		if (ingress_last_rx_cpu != cpu) {
			ingress_rx_cpu_changes++;
			ingress_last_rx_cpu = cpu;
		}
	}
	return bpf_redirect_map(&loc_cpumap, loc_target_cpu, XDP_PASS);
}

SEC("xdp/cpumap")
int loc_dequeue(struct xdp_md *ctx)
{
	__u32 seq, len;

	if (!loc_tcp_seq((void *)(long)ctx->data, (void *)(long)ctx->data_end,
			 &seq, &len) && len)
		loc_check(&dequeue_segments, &dequeue_behind, &dequeue_highest,
			  &dequeue_seen_any, seq);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
