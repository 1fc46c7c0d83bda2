// SPDX-License-Identifier: GPL-2.0
/*
 * Where the application runs: sock_recv_length and sock_send_length fire
 * in the calling thread on every recvmsg/sendmsg; either records only
 * when the socket's frames land on another CPU than the caller's
 * (rfs_frames_land_here).  Kernels
 * without those tracepoints use the kprobes below instead; rfsd loads one
 * set or the other (autoload), never both.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "rfs_sock.bpf.h"

/* Only calls that moved data: a poll for data that is not there yet
 * (EAGAIN) says nothing a successful call a moment later won't say, and
 * event-driven servers make many of them.  A read where the socket's
 * frames already land is the steady state of a steered flow: counted,
 * not recorded (rfs_frames_land_here). */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(rfs_tp_recv, struct sock *sk, int ret, int flags)
{
	if (ret > 0 && !rfs_recv_lands_here(sk, true))
		rfs_record_sock(sk, true);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(rfs_tp_send, struct sock *sk, int ret, int flags)
{
	if (ret > 0 && !rfs_frames_land_here(sk, true))
		rfs_record_sock(sk, true);
	return 0;
}

SEC("kprobe/tcp_recvmsg")
int BPF_KPROBE(rfs_kp_tcp_recv, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}

SEC("kprobe/tcp_sendmsg")
int BPF_KPROBE(rfs_kp_tcp_send, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}

SEC("kprobe/udp_recvmsg")
int BPF_KPROBE(rfs_kp_udp_recv, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}

SEC("kprobe/udp_sendmsg")
int BPF_KPROBE(rfs_kp_udp_send, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}

SEC("kprobe/udpv6_recvmsg")
int BPF_KPROBE(rfs_kp_udp6_recv, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}

SEC("kprobe/udpv6_sendmsg")
int BPF_KPROBE(rfs_kp_udp6_send, struct sock *sk)
{
	if (!rfs_frames_land_here(sk, false))
		rfs_record_sock(sk, false);
	return 0;
}
