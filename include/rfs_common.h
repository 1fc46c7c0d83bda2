/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types, constants, map names and pin paths shared by the BPF programs and
 * userspace.  No logic and no libc: this header builds with clang -target bpf
 * (where vmlinux.h provides the __u types) and on the host.
 */
#ifndef RFS_COMMON_H
#define RFS_COMMON_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define RFS_VERSION		"0.1.0"

/* The largest CPU number + 1 that xdp-rfs can steer to. */
#define RFS_MAX_CPUS		256
#define RFS_CPU_WORDS		(RFS_MAX_CPUS / 64)
#define RFS_NO_CPU		0xffffu

/* Table sizes: all powers of two. */
#define RFS_SOCK_FLOW_DEFAULT	32768
#define RFS_SOCK_FLOW_MIN	256
#define RFS_SOCK_FLOW_MAX	(1u << 24)
#define RFS_FLOW_CNT_DEFAULT	4096
#define RFS_FLOW_CNT_MIN	64
#define RFS_FLOW_CNT_MAX	(1u << 20)
#define RFS_MAX_RX_QUEUES	256
#define RFS_CPUMAP_QSIZE	2048

/*
 * Sock flow entry (32 bits), one per slot of the global sock flow table,
 * indexed by hash & (sock_flow_entries - 1).  Like the kernel's
 * rps_sock_flow_table it keeps the high hash bits as a tag next to the CPU,
 * so that a colliding flow is not steered by another flow's entry:
 *
 *	entry = (hash & ~cpu_mask) | (cpu + 1)		0 = empty slot
 *
 * The CPU is stored plus one so that a zero-filled map means "no CPU".
 * cpu_mask is the smallest 2^n - 1 that holds nr_cpus (the largest cpu + 1).
 * Example: 2 CPUs -> values 1..2 -> cpu_mask 0x3 -> 30 tag bits; 64 CPUs ->
 * values 1..64 -> cpu_mask 0x7f -> 25 tag bits.  Of the tag bits, the low
 * log2(entries) are implied by the slot, the rest tell flows apart.
 */
typedef __u32 rfs_sock_entry_t;

/*
 * Dev flow entry (64 bits), one per (RX queue, flow slot) of an interface,
 * indexed by (hash & (flow_cnt - 1)) * rx_queues + rxq.  It says where the
 * flow's last frame went, and the tail counter of that CPU's queue right
 * after it was enqueued: once that CPU's head reaches last_tail, every frame
 * of the flow sent there has been dequeued and the flow may move.
 */
struct rfs_dev_flow {
	__u16 cpu;		/* valid only with RFS_DEV_FLOW_VALID */
	__u16 flags;
	__u32 last_tail;
};
#define RFS_DEV_FLOW_VALID	0x1

/*
 * Per-CPU queue counters, one array slot per target CPU.
 *
 * tail and drops are advanced by whichever CPU enqueues (atomically):
 * tail for every frame redirected to this CPU, drops for the frames the
 * cpumap then found no room for in the ring.  A flow's last_tail is
 * tail - drops as seen right after its frame was counted: drops reported
 * later only make the flow wait a little longer, never less.
 *
 * head and done are written only by this CPU's cpumap kthread.  head
 * counts frames dequeued (the cpumap program ran on them).  done counts
 * frames delivered: since 6.15 the cpumap kthread holds dequeued frames
 * in GRO for up to 64 packets, so "dequeued" is not "delivered", and a
 * flow moved on head alone can overtake its own held segments.  done is
 * raised to head only where the kthread's GRO node is empty (see
 * bpf/rfs_gro.bpf.c); on kernels without GRO in the cpumap, done simply
 * follows head.  The two groups sit on separate cache lines so the
 * consumer does not bounce the producers' line.
 */
struct rfs_cpu_queue {
	__u32 tail;
	__u32 drops;
	__u32 _pad_producer[14];
	__u32 head;
	__u32 done;
	__u64 flush_task;	/* this CPU's cpumap kthread (task address) */
	__u64 flush_gro;	/* and its bpf_cpu_map_entry */
	__u32 _pad_consumer[10];
};

/*
 * Per producer CPU (per-CPU map, one slot): frames this CPU redirected to
 * each target that still sit in its cpumap bulk queue.  They reach the
 * ring only when the NAPI poll ends, so while one is there the target's
 * counters say nothing about it: a flow on that target stays put.
 */
struct rfs_producer {
	__u16 unflushed[RFS_MAX_CPUS];
};

/* Global settings, one slot, written by rfsd. */
struct rfs_globals {
	__u32 sock_flow_mask;	/* sock_flow_entries - 1 */
	__u32 cpu_mask;		/* entry encoding, see rfs_sock_entry_t */
	__u32 hash_seed;	/* random per datapath: flows can't be aimed at one slot */
	__u32 cpumap_id;	/* to pick our cpumap out of xdp_cpumap_enqueue */
	__u32 nr_cpus;
	__u32 _pad;
};

/* Per-interface settings, one slot in each XDP program's rfs_if_cfg. */
struct rfs_if_config {
	__u32 flow_mask;	/* flow_cnt - 1 */
	__u32 rx_queues;
	__u32 n_allowed;	/* entries used in allowed_list */
	__u32 sample_flows;	/* nonzero: count frames per flow in rfs_flow_hits */
	/* rfsd's own bookkeeping, kept here so a restarted rfsd adopts it */
	__u32 xdp_mode;		/* enum rfs_xdp_mode it was attached with */
	__u32 _pad;
	__u64 configured[RFS_CPU_WORDS];	/* the set the user asked for */
	/* CPUs that may be given flows. */
	__u64 allowed[RFS_CPU_WORDS];
	/*
	 * CPUs frames may still be sent to: allowed, plus CPUs being removed
	 * whose flows wait for their queue to drain so they leave in order.
	 */
	__u64 usable[RFS_CPU_WORDS];
	/* allowed, as a list, for spreading flows with no desired CPU */
	__u16 allowed_list[RFS_MAX_CPUS];
};

enum rfs_xdp_mode {
	RFS_XDP_AUTO,
	RFS_XDP_NATIVE,
	RFS_XDP_GENERIC,
};

/*
 * While rfsctl flows samples an interface, every frame adds itself to
 * its flow's slot here (per CPU, indexed by hash & (RFS_FLOW_HITS - 1)).
 * Off otherwise: it costs one branch per frame.
 */
#define RFS_FLOW_HITS		4096
struct rfs_flow_hit {
	__u32 hash;
	__u32 frames;
	__u16 rx_queue;
	__u16 _pad;
};

/* Datapath counters of one XDP program (one interface), per CPU. */
struct rfs_if_stats {
	__u64 seen;		/* frames the XDP program ran on */
	__u64 steered;		/* redirected into the cpumap: the sum of */
	__u64 to_desired;	/* ... to the CPU the application runs on */
	__u64 spread;		/* ... by hash: no desired CPU known or allowed */
	__u64 held;		/* ... to the old CPU: it has not drained yet */
	__u64 switches;		/* flow moved to another CPU */
	__u64 pass_not_ip;
	__u64 pass_fragment;
	__u64 pass_other_proto;
	__u64 pass_truncated;
	__u64 pass_no_table;	/* no config, table or allowed CPU */
	__u64 redirect_err;	/* CPU missing from the cpumap */
};

/* Counters of the socket-side and cpumap-side programs, per CPU. */
struct rfs_global_stats {
	__u64 dequeued;		/* frames the cpumap program ran on */
	__u64 enqueue_drops;	/* frames the cpumap dropped: ring full */
	__u64 sock_records;	/* sock flow entries written */
	__u64 sock_clears;	/* entries cleared on close */
	__u64 sock_skipped;	/* unconnected or non-IP sockets */
};

/* Map names (<= 15 characters: bpftool and the kernel truncate). */
#define RFS_MAP_SOCK_OUTER	"rfs_sock_outer"
#define RFS_MAP_SOCK_FLOWS	"rfs_sock_flows"
#define RFS_MAP_CPU_QUEUES	"rfs_cpu_queues"
#define RFS_MAP_CPUMAP		"rfs_cpu_map"
#define RFS_MAP_GLOBALS		"rfs_globals"
#define RFS_MAP_GSTATS		"rfs_gstats"
#define RFS_MAP_PRODUCER	"rfs_producer"
#define RFS_MAP_DEV_OUTER	"rfs_dev_outer"
#define RFS_MAP_DEV_FLOWS	"rfs_dev_flows"
#define RFS_MAP_IF_CFG		"rfs_if_cfg"
#define RFS_MAP_IF_STATS	"rfs_if_stats"
#define RFS_MAP_FLOW_HITS	"rfs_flow_hits"

/*
 * Pin layout, below the pin dir (default /sys/fs/bpf/rfs):
 *	v1/maps/<map>		shared maps
 *	v1/links/<prog>		tracing, sockops and cpumap-side links
 *	v1/if/<ifname>/		prog and the interface's own maps
 */
#define RFS_PIN_DIR_DEFAULT	"/sys/fs/bpf/rfs"
#define RFS_PIN_LAYOUT		"v1"

#endif /* RFS_COMMON_H */
