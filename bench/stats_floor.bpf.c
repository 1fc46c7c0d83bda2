// SPDX-License-Identifier: GPL-2.0
/*
 * What a program run costs before it does anything: empty programs on two
 * of the tracepoints the datapath hooks, attached beside rfsd's for the
 * bench's profile session (bench/floor.c).  With kernel.bpf_stats_enabled
 * every run is timed by two clock reads around the program; an empty
 * program's ns per run is that, plus the call, and every ns/run of that
 * session includes it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sock_recv_length")
int BPF_PROG(floor_sock_recv, struct sock *sk, int ret, int flags)
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
