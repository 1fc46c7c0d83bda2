/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel and an interface offer the datapath, found by
 * looking (BTF, tracefs, sysfs, rtnetlink), never by version number, and
 * what each missing piece means for the in-order rule (include/rfs_order.h).
 */
#ifndef RFS_FEATURES_H
#define RFS_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct rfs_local_params {
	int hz;			/* CONFIG_HZ, or the assumed 1000 */
	__u32 drain_jiffies;	/* rfs_if_config.local_drain_jiffies */
	bool handover;		/* rfs_if_config.local_handover */
	bool safe;		/* the drain is known: else no local path */
};

/* Where the cpumap kthread can hold skbs after our cpumap program ran. */
enum rfs_cpumap_gro {
	RFS_GRO_NONE,		/* no GRO stage: a batch goes straight up */
	RFS_GRO_READABLE,	/* bpf_cpu_map_entry.gro, read by the proof */
	RFS_GRO_UNREADABLE,	/* a GRO stage the proof can't look into */
};

struct rfs_kfeatures {
	char release[65];	/* uname -r */
	bool btf;		/* /sys/kernel/btf/vmlinux: CO-RE, tp_btf */
	bool tp_sock_len;	/* btf_trace_sock_recv_length + _send_length */
	bool kprobes;		/* the kprobe PMU (perf_event_open kprobes) */
	bool fentry;		/* BTF of tcp_recvmsg + direct-call trampolines */
	bool func_ret;		/* bpf_get_func_ret (5.17): fexit socket hooks */
	bool sockops_state;	/* BPF_SOCK_OPS_STATE_CB (a socket's close) */
	bool tp_enqueue;	/* tp_btf/xdp_cpumap_enqueue */
	bool tp_kthread;	/* tp_btf/xdp_cpumap_kthread with its stats arg */
	bool kthread_data;	/* task->worker_private->data is the cpumap entry */
	bool task_state;	/* task_struct.__state (is the kthread asleep) */
	bool cpumap_prog;	/* bpf_cpumap_val.bpf_prog: cpumap programs */
	bool frame_meta;	/* xdp_frame.metasize: metadata crosses the ring */
	enum rfs_cpumap_gro cpumap_gro;
	int hz;			/* CONFIG_HZ; 0: unknown */
	bool faked;		/* RFS_TEST_FEATURES changed something */
};

/* Fill f from this kernel; then, for tests only, RFS_TEST_FEATURES
 * ("name=value,...") overrides it, to show what rfsd does elsewhere. */
void rfs_kfeatures_detect(struct rfs_kfeatures *f);
/* One feature by its field's name: bools 0/1, cpumap_gro
 * none/readable/unreadable, hz a number; -EINVAL for anything else. */
int rfs_kfeat_set(struct rfs_kfeatures *f, const char *name,
		  const char *value);

/* ---- what each feature means (rfs_kjudge.c, pure) ---- */

enum rfs_feat_level {
	RFS_FEAT_OK,		/* as the design wants it */
	RFS_FEAT_DEGRADED,	/* still in order; less local, or costlier */
	RFS_FEAT_UNSAFE,	/* the in-order rule can't be kept */
};

#define RFS_FEAT_MAX 16

struct rfs_feat_line {
	const char *name;	/* "cpumap_gro", "socket_hooks", ... */
	enum rfs_feat_level level;
	char value[48];		/* what was found / chosen */
	char why[200];		/* what it means, one sentence */
};

struct rfs_feat_report {
	struct rfs_feat_line line[RFS_FEAT_MAX];
	int n;
	bool order_kept;	/* no line is RFS_FEAT_UNSAFE */
};

/* The kernel's lines, from f alone (interfaces: rfs_kjudge_iface()). */
void rfs_kjudge(const struct rfs_kfeatures *f, struct rfs_feat_report *r);

struct rfs_if_facts {
	bool native;		/* native XDP (else generic: skb mode) */
	long long gro_flush_timeout;	/* ns; -1: unreadable */
};
/* One interface's lines, appended to r (as "<what>" names). */
void rfs_kjudge_iface(const struct rfs_kfeatures *f,
		      const struct rfs_if_facts *i, struct rfs_feat_report *r);
const char *rfs_feat_level_name(enum rfs_feat_level l);

/* ---- the local path ---- */

int rfs_kernel_hz(void);
/* bpf_jiffies64() now, as the programs stamp it (rfs_bpf.c) */
bool rfs_read_jiffies(__u64 *out);
/* rfs_text_u64() (parse.h) on the file at path: 0, or -errno. */
int rfs_file_u64(const char *path, const char *key, __u64 *out);
/* ns; -1 if unreadable */
long long rfs_if_gro_flush_timeout(const char *ifname);
/* Visit the interface's RX queues' sysfs dirs until stop (may be NULL)
 * returns true: how many were visited, 0 for no such interface. */
unsigned int rfs_sysfs_rx_queues(const char *ifname,
			      bool (*stop)(const char *queue_dir, void *arg),
			      void *arg);
/* Kernel RPS is on for one of the interface's RX queues (a non-zero
 * rps_cpus, its path into path). */
bool rfs_if_rps_on(const char *ifname, char *path, size_t len);
/* Why that matters, for rfsd's messages about it. */
#define RFS_RPS_WHY \
	"it moves the frames xdp-rfs steers into other CPUs' backlogs, past the in-order rule"
void rfs_local_path_params(const char *ifname, bool no_attach,
			   struct rfs_local_params *p);

/* ---- what rtnetlink tells of a link that sysfs does not (rfs_link.c) ---- */

/* The RX queues the device allocated (IFLA_NUM_RX_QUEUES), which ethtool
 * -L may use at any time: -ENODEV no such link, -EOPNOTSUPP not reported
 * (no CONFIG_RPS). */
int rfs_link_num_rx_queues(int ifindex, __u32 *out);
/* Its answer, len bytes from the socket: the same results, -EPROTO for
 * bytes that are no netlink message of seq and portid (0: any). */
int rfs_link_parse_rxq(const void *buf, size_t len, unsigned int seq,
		       unsigned int portid, __u32 *out);

#endif /* RFS_FEATURES_H */
