// SPDX-License-Identifier: GPL-2.0
/*
 * The front of bench/inject's NIC-like receive path.  BPF_PROG_TEST_RUN
 * with live frames repeats one frame, as the caller gave it; a NIC RX
 * queue delivers frames of many flows.  So every frame first goes through
 * rfs_inject, which gives it the next flow's UDP destination port (flows
 * taken round robin, one per connected socket of the bench's readers),
 * then tail-calls the program under test in rfs_inject_next[0]:
 *
 *   rfs_inject_pass   XDP_PASS: the kernel modes (base, rps, rfs); live
 *                     mode builds the skb on the injecting CPU and hands
 *                     it to netif_receive_skb_list(), where RPS/RFS act
 *   rfs_xdp           rfsd's program for the lab interface (xdp modes)
 *
 * Every mode pays for rfs_inject and the tail call alike.  The UDP
 * checksum is zeroed (none, for IPv4) since the port changes.  The live
 * test run leaves the frame as the program left it for the next repeat,
 * so the port is set whole each time, never incremented.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Set by the loader before load. */
const volatile __u32 rfs_inj_flows = 1;	/* distinct flows, >= 1 */
const volatile __u16 rfs_inj_port0;	/* first destination port */

/* Frames so far, per CPU: the injector runs on one CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rfs_inj_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rfs_inject_next SEC(".maps");

/* The frame bench/inject builds: Ethernet, IPv4 without options, UDP. */
#define RFS_INJ_UDP_OFF	(14 + 20)

SEC("xdp")
int rfs_inject(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct udphdr *udp = data + RFS_INJ_UDP_OFF;
	__u32 zero = 0, *n;

	if ((void *)(udp + 1) > end)
		return XDP_ABORTED;
	n = bpf_map_lookup_elem(&rfs_inj_count, &zero);
	if (!n)
		return XDP_ABORTED;
	udp->dest = bpf_htons(rfs_inj_port0 + *n % rfs_inj_flows);
	udp->check = 0;
	(*n)++;
	bpf_tail_call(ctx, &rfs_inject_next, 0);
	return XDP_ABORTED;	/* nothing in the slot */
}

SEC("xdp")
int rfs_inject_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
