// SPDX-License-Identifier: GPL-2.0
/*
 * Where the application runs: sock_recv_length and sock_send_length fire
 * in the calling thread on every recvmsg/sendmsg: a recv records the
 * reader's CPU, a send only when the socket's frames land on another CPU
 * than the sender's (rfs_frames_land_here).  Kernels without those tracepoints (before
 * 6.3) use fexit programs on the protocols' recvmsg/sendmsg where BPF
 * trampolines work, else kprobes on the same functions; rfsd loads
 * exactly one of the three sets (autoload).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "rfs_sock.bpf.h"

/* Only calls that moved data: a poll for data that is not there yet
 * (EAGAIN) says nothing a successful call a moment later won't say, and
 * event-driven servers make many of them.  Every read that moved data
 * records: the reader's CPU is what the table holds, also when the flow's
 * frames already land there by hash (then rfsctl counts them as steered
 * to the application, and explain names its CPU). */
SEC("tp_btf/sock_recv_length")
int BPF_PROG(rfs_tp_recv, struct sock *sk, int ret, int flags)
{
	if (ret > 0) {
		rfs_count_locality(sk, true);
		rfs_record_sock(sk, true);
	}
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(rfs_tp_send, struct sock *sk, int ret, int flags)
{
	if (ret > 0 && !rfs_frames_land_here(sk, true))
		rfs_record_sock(sk, true);
	return 0;
}

/*
 * fexit: the same rule as the tracepoints (only calls that moved data),
 * read from the function's return value, and sk as a BTF pointer (plain
 * loads, as tp_btf).  The return value comes from bpf_get_func_ret(), not
 * from a fixed argument: the recvmsg functions had a nonblock argument
 * before 5.19, so the position of the return value differs.  It is the
 * int the function returned: cast before comparing, the upper half of
 * the saved register is not part of it.
 */
static __always_inline int rfs_fx_ret(void *ctx)
{
	__u64 ret = 0;

	if (bpf_get_func_ret(ctx, &ret))
		return 0;
	return (int)ret;
}

static __always_inline void rfs_fx_recv(void *ctx, struct sock *sk)
{
	if (rfs_fx_ret(ctx) > 0) {
		rfs_count_locality(sk, true);
		rfs_record_sock(sk, true);
	}
}

static __always_inline void rfs_fx_send(void *ctx, struct sock *sk)
{
	if (rfs_fx_ret(ctx) > 0 && !rfs_frames_land_here(sk, true))
		rfs_record_sock(sk, true);
}

SEC("fexit/tcp_recvmsg")
int BPF_PROG(rfs_fx_tcp_recv, struct sock *sk)
{
	rfs_fx_recv(ctx, sk);
	return 0;
}

SEC("fexit/tcp_sendmsg")
int BPF_PROG(rfs_fx_tcp_send, struct sock *sk)
{
	rfs_fx_send(ctx, sk);
	return 0;
}

SEC("fexit/udp_recvmsg")
int BPF_PROG(rfs_fx_udp_recv, struct sock *sk)
{
	rfs_fx_recv(ctx, sk);
	return 0;
}

SEC("fexit/udp_sendmsg")
int BPF_PROG(rfs_fx_udp_send, struct sock *sk)
{
	rfs_fx_send(ctx, sk);
	return 0;
}

SEC("fexit/udpv6_recvmsg")
int BPF_PROG(rfs_fx_udp6_recv, struct sock *sk)
{
	rfs_fx_recv(ctx, sk);
	return 0;
}

SEC("fexit/udpv6_sendmsg")
int BPF_PROG(rfs_fx_udp6_send, struct sock *sk)
{
	rfs_fx_send(ctx, sk);
	return 0;
}

/* kprobes: every call, also those that move no data (there is no return
 * value at entry), and sk is untrusted (bpf_probe_read per field). */
SEC("kprobe/tcp_recvmsg")
int BPF_KPROBE(rfs_kp_tcp_recv, struct sock *sk)
{
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
