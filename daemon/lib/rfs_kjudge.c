// SPDX-License-Identifier: GPL-2.0
/*
 * What each feature means for the in-order rule (include/rfs_order.h),
 * which holds as long as no frame is vouched for before it left every
 * place the kernel can hold it.  A missing hook that only withholds
 * proofs degrades: flows stay, in order, until a proof comes some other
 * way or never.  A place that holds frames the proof can't see (a cpumap
 * GRO stage it can't read) breaks it: only that is UNSAFE.
 */
#include <stdio.h>
#include <string.h>

#include "rfs_dp.h"

const char *rfs_feat_level_name(enum rfs_feat_level l)
{
	return l == RFS_FEAT_OK ? "ok" : l == RFS_FEAT_DEGRADED ? "degraded" :
	       "unsafe";
}

static void rfs_line(struct rfs_feat_report *r, const char *name,
		     enum rfs_feat_level level, const char *value,
		     const char *why)
{
	struct rfs_feat_line *l;

	if (r->n >= RFS_FEAT_MAX)
		return;
	l = &r->line[r->n++];
	l->name = name;
	l->level = level;
	snprintf(l->value, sizeof(l->value), "%s", value);
	snprintf(l->why, sizeof(l->why), "%s", why);
	if (level == RFS_FEAT_UNSAFE)
		r->order_kept = false;
}

void rfs_kjudge(const struct rfs_kfeatures *f, struct rfs_feat_report *r)
{
	char v[48];

	memset(r, 0, sizeof(*r));
	r->order_kept = true;

	if (!f->btf)
		rfs_line(r, "btf", RFS_FEAT_UNSAFE, "no",
			 "no /sys/kernel/btf/vmlinux: the programs (CO-RE, tp_btf) can't load, and a cpumap GRO stage can't be ruled out");
	else
		rfs_line(r, "btf", RFS_FEAT_OK, "yes", "vmlinux BTF: CO-RE and tp_btf");

	switch (f->cpumap_gro) {
	case RFS_GRO_NONE:
		rfs_line(r, "cpumap_gro", RFS_FEAT_OK, "none",
			 "the cpumap kthread hands each batch straight to the stack: a batch is delivered when the next begins");
		break;
	case RFS_GRO_READABLE:
		rfs_line(r, "cpumap_gro", RFS_FEAT_OK, "gro_node",
			 "the cpumap kthread runs GRO; the delivery proof reads its GRO node");
		break;
	default:
		rfs_line(r, "cpumap_gro", RFS_FEAT_UNSAFE, "unreadable",
			 "the cpumap kthread may hold skbs where the delivery proof can't look: a flow could move while its frames are held");
		break;
	}

	if (f->tp_kthread && f->kthread_data)
		rfs_line(r, "delivery_proof", RFS_FEAT_OK,
			 "tp_btf/xdp_cpumap_kthread",
			 "once per cpumap batch: flows leave a busy CPU once their frames are proven delivered");
	else
		rfs_line(r, "delivery_proof", RFS_FEAT_DEGRADED, "none",
			 !f->tp_kthread ?
			 "no tp_btf/xdp_cpumap_kthread with its stats argument: flows leave a CPU only when its cpumap kthread sleeps" :
			 "the kthread's cpumap entry can't be found (no task_struct.worker_private): flows leave a CPU only when its cpumap kthread sleeps");

	if (!f->task_state)
		rfs_line(r, "kthread_state", RFS_FEAT_DEGRADED, "no",
			 "no task_struct.__state: rfs_xdp can't see a target asleep (and won't load)");
	else
		rfs_line(r, "kthread_state", RFS_FEAT_OK, "__state",
			 "an idle target proves its frames delivered at once");

	if (f->cpumap_prog && f->frame_meta)
		rfs_line(r, "cpumap_meta", RFS_FEAT_OK, "yes",
			 "XDP metadata reaches the cpumap program (native XDP): the target marks every frame");
	else
		rfs_line(r, "cpumap_meta", RFS_FEAT_DEGRADED, "no",
			 "no cpumap program or no metadata in xdp_frame: nothing is marked, flows keep the CPU they were first given");

	if (f->tp_sock_len)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK,
			 "tp_btf/sock_recv_length",
			 "tp_btf/sock_recv_length and sock_send_length record where the application reads");
	else if (f->fentry && f->func_ret)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK, "fexit",
			 "no sock_recv_length tracepoint: fexit on tcp_/udp_recvmsg and _sendmsg records the calls that moved data");
	else if (f->kprobes)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK, "kprobe",
			 "no sock_recv_length tracepoint nor fexit: kprobes on tcp_/udp_recvmsg and _sendmsg record every call, also those that move no data");
	else
		rfs_line(r, "socket_hooks", RFS_FEAT_DEGRADED, "none",
			 "no sock_recv_length tracepoints, fexit or kprobes: flows are spread by hash and don't follow the application");

	rfs_line(r, "kprobes", RFS_FEAT_OK, f->kprobes ? "yes" : "no",
		 f->kprobes ? "kprobes can be placed (the socket hooks' last fallback)" :
			      "no kprobes (needed only without the sock_*_length tracepoints and fexit)");

	rfs_line(r, "sockops", f->sockops_state ? RFS_FEAT_OK : RFS_FEAT_DEGRADED,
		 f->sockops_state ? "established, state" : "established",
		 f->sockops_state ?
		 "sockops records a connection at establishment and forgets it at close" :
		 "no BPF_SOCK_OPS_STATE_CB: a closed connection's entry stays until overwritten");

	rfs_line(r, "enqueue_drops", f->tp_enqueue ? RFS_FEAT_OK : RFS_FEAT_DEGRADED,
		 f->tp_enqueue ? "tp_btf/xdp_cpumap_enqueue" : "none",
		 f->tp_enqueue ?
		 "ring drops are counted, and a lost last frame holds up no CPU removal" :
		 "ring drops are not counted; removing a CPU may wait for traffic");

	rfs_line(r, "fentry", RFS_FEAT_OK, f->fentry ? "yes" : "no",
		 !f->fentry ? "no BPF trampolines (the socket hooks' fallback without the tracepoints)" :
		 f->tp_sock_len ? "BPF trampolines work (not used: the tracepoints are there)" :
		 f->func_ret ? "BPF trampolines work: the socket hooks use fexit" :
			       "BPF trampolines work, but no bpf_get_func_ret (5.17) for the fexit socket hooks");

	if (f->hz > 0) {
		snprintf(v, sizeof(v), "%d", f->hz);
		rfs_line(r, "hz", RFS_FEAT_OK, v,
			 f->hz >= 1000 ?
			 "HZ >= 1000: busy NAPI polls flush only old GRO packets; local flows drain 3 jiffies" :
			 "HZ < 1000: every NAPI poll flushes GRO fully; local flows drain 2 jiffies or hand over");
	} else {
		rfs_line(r, "hz", RFS_FEAT_DEGRADED, "unknown",
			 "no kernel config to read CONFIG_HZ from: 1000 assumed, the longest local drain");
	}
}

void rfs_kjudge_iface(const struct rfs_kfeatures *f,
		      const struct rfs_if_facts *i, struct rfs_feat_report *r)
{
	char v[48];

	if (i->native)
		rfs_line(r, "xdp_mode", RFS_FEAT_OK, "native",
			 f->cpumap_prog && f->frame_meta ?
			 "native XDP: frames carry their sequence number to the target" :
			 "native XDP, but the kernel's cpumap can't mark frames (cpumap_meta)");
	else
		rfs_line(r, "xdp_mode", RFS_FEAT_DEGRADED, "generic",
			 "generic XDP: the kernel passes no XDP metadata to the cpumap program, so flows keep the CPU they were first given");
	if (i->gro_flush_timeout < 0) {
		rfs_line(r, "gro_flush_timeout", RFS_FEAT_DEGRADED, "unknown",
			 "unreadable: how long NAPI GRO holds a frame is unknown, so the local path is off (every frame goes through the cpumap)");
	} else {
		snprintf(v, sizeof(v), "%lld ns", i->gro_flush_timeout);
		rfs_line(r, "gro_flush_timeout", RFS_FEAT_OK, v,
			 i->gro_flush_timeout ?
			 "local flows wait the timeout out before they move" :
			 "no deferred GRO flush");
	}
}
