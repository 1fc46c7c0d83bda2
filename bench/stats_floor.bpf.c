// SPDX-License-Identifier: GPL-2.0
/*
 * What a program run costs before it does anything: empty programs on
 * three of the tracepoints the datapath hooks (bench/floor.c), attached
 * beside rfsd's for the bench's profile session, and alone, behind the
 * XDP_PASS program, for mode tp-floor.  With kernel.bpf_stats_enabled
 * every run is timed by two clock reads around the program; an empty
 * program's ns per run is that, plus the call, and every ns/run of that
 * session includes it.  Without the stats, tp-floor's transactions/s are
 * the least any socket side on these tracepoints can cost.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sock_recv_length")
int BPF_PROG(floor_sock_recv, struct sock *sk, int ret, int flags)
{
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(floor_sock_send, struct sock *sk, int ret, int flags)
{
	return 0;
}

SEC("tp_btf/xdp_cpumap_kthread")
int BPF_PROG(floor_kthread, int map_id, unsigned int processed,
	     unsigned int drops, int sched, struct xdp_cpumap_stats *xs)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
