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

/* A package build passes its own version (make RFS_VERSION=...), so
 * `rfsd --version` and status name the build that runs. */
#ifndef RFS_VERSION
#define RFS_VERSION		"0.1.0"
#endif

/* The largest CPU number + 1 that xdp-rfs can steer to. */
#define RFS_MAX_CPUS		256
/*
 * The largest CPU number + 1 that frames may arrive on and be steered
 * from: every possible CPU of a kernel built with NR_CPUS 8192 (Debian's).
 * An RX CPU is only an index into rfs_rx_track's rows, which rfsd sizes
 * by the possible CPUs; it needs no bitmap.
 */
#define RFS_MAX_RX_CPUS		8192
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
/*
 * Frames a target CPU's cpumap ring holds.  A bulk TCP flow steered to a
 * CPU that also runs its application keeps up to a receive window in
 * flight, and the kthread shares that CPU with the application: 2048
 * slots overflowed in bulk TCP (tests/integration/test_order.sh
 * test_bulk_tcp_remote, 100-3700 drops per 3 s); the kernel's limit is
 * 16384.  The ring itself is 8 bytes a slot; what it holds is frames in
 * flight anyway.
 */
#define RFS_CPUMAP_QSIZE	8192

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
 * Dev flow entry (64 bits), one per (flow slot, RX queue) of an interface:
 * where the flow's last frame went, and the mark that tells when that
 * frame has been delivered (see include/rfs_order.h for the rule):
 *
 *	remote (cpumap):  cpu = target, rx_cpu = CPU that redirected it,
 *			  last = its sequence number from rx_cpu to cpu; a
 *			  bare frame (RFS_DEV_FLOW_BARE: sent without one)
 *			  records the number the next marked frame from
 *			  rx_cpu to cpu will take, whose mark covers it
 *			  (rfs_order.h, LAZY MARKS)
 *	local (XDP_PASS): cpu = rx_cpu = CPU it arrived on, RFS_DEV_FLOW_LOCAL,
 *			  last = low 32 bits of jiffies when it was passed
 *
 * Example: frame 7 from RX CPU 300 to CPU 3 is {last 7, rx_cpu 300, cpu 3,
 * VALID}: 0x01 03 012c 00000007 (flags, cpu, rx_cpu, last) read as one
 * little-endian u64.  It is written and read as one 64-bit access
 * (rfs_dev_flow_update/_load), so no reader sees half of an entry.
 *
 * Entry 0 of every dev flow table is not a flow but the table's header
 * (RFS_DEV_TABLE_HDR): last = flow_mask, rx_cpu = rx_queues.  A table
 * carries its own geometry, so swapping in a table of another size is one
 * pointer swap that no reader can see half done.  Flow entries start at
 * index 1.
 */
struct rfs_dev_flow {
	__u32 last;
	__u16 rx_cpu;		/* < RFS_MAX_RX_CPUS; the header: rx_queues */
	__u8 cpu;		/* < RFS_MAX_CPUS */
	__u8 flags;
} __attribute__((aligned(8)));
#define RFS_DEV_FLOW_VALID	0x1
#define RFS_DEV_FLOW_LOCAL	0x2
#define RFS_DEV_FLOW_BARE	0x4
#define RFS_DEV_TABLE_HDR	0x80

/*
 * Per target CPU, one array slot each, written only by that CPU (its
 * cpumap program and its xdp_cpumap_kthread tracepoint), read by every RX
 * CPU.  128 bytes, in a BPF_F_MMAPABLE array so that values start on a
 * page boundary: one target's slot never shares a cache line with
 * another's (a plain array's values start at byte 312 on 6.18).
 */
struct rfs_jiffy_epoch {
	__u64 jiffy;		/* a jiffies value seen at a batch */
	__u32 epoch;		/* the last batch epoch stamped in that jiffy */
	__u32 _pad;
};
#define RFS_EPOCH_HISTORY	4

struct rfs_cpu_queue {
	__u32 epoch;		/* batch number: frames dequeued now get it;
				   starts at 1 (rfsd), so delivered = 0 is
				   "nothing proven yet" */
	__u32 delivered;	/* every batch with epoch <= this is delivered */
	__u64 kthread;		/* this CPU's cpumap kthread (task address) */
	__u64 rcpu;		/* and its bpf_cpu_map_entry (GRO node) */
	__u64 dequeued;		/* frames the cpumap program ran on */
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY];
	__u32 jiffy;		/* low 32 bits of jiffies at the last batch */
	__u32 kthread_pid;	/* its cpumap kthread, as its last batch saw
				   it; 0: none yet.  rfsd sets its scheduling
				   policy (cpumap_kthread_sched).  In the
				   spare word: the size, which is all the
				   pinned-map check compares, stays 128 */
	/* rfsd's note, not the datapath's: the scheduling policy rfsd gave
	 * this CPU's cpumap kthread (cpumap_kthread_sched), kept with the
	 * pins so that the next rfsd knows which kthread an earlier one
	 * changed (daemon/rfsd/ksched.c).  pid << 32 | policy << 16 | (__u16)
	 * priority (SCHED_FIFO's rt priority, else the nice); 0: none.  One
	 * store through the map's mmap, beside the fields BPF writes. */
	__u64 ksched_note;
	__u32 refused;		/* low 32 bits of jiffies when a UDP socket
				   last refused a datagram on this CPU (early
				   drop: rfs_full_recent); 0: never */
	__u32 _pad32;
	__u64 _pad;
};
/* Two cache lines exactly: a slot shares no line with another target's. */
_Static_assert(sizeof(struct rfs_cpu_queue) == 128, "rfs_cpu_queue layout");

/*
 * What a target CPU has dequeued from one RX CPU: rfs_rx_track[target *
 * nr_rx_cpus + rx_cpu] (rfs_rx_track_index()), nr_rx_cpus being the
 * possible CPUs (rfs_globals).  Each u64 is a mark, epoch << 32 | seq, meaning
 * "frame seq from rx_cpu, and every frame from it before, was dequeued
 * in a batch of epoch <= epoch".  Each is stored whole, so any mark a
 * reader sees is true (rfs_order.h).  Only the target writes its row.
 *
 * Under steady traffic from rx_cpu the newest marks are always younger
 * than the delivered epoch, so older ones are kept too: prev rolls by
 * epoch, jiffy1/jiffy2 by jiffy (an age-based proof lags by about a
 * jiffy), and done is the newest mark seen delivered at a dequeue.
 */
struct rfs_rx_track {
	__u64 last;		/* the newest mark */
	__u64 prev;		/* the newest of an earlier epoch than last */
	__u64 jiffy1;		/* the newest of an earlier jiffy than last */
	__u64 jiffy2;		/* the newest of an earlier jiffy than jiffy1 */
	__u64 done;		/* the newest found delivered at a dequeue */
	__u32 jiffy;		/* low 32 bits of the jiffy of last */
	__u32 _pad;
	__u64 _line[2];		/* a cache line each: a track the target
				   writes and its RX CPU reads never spans
				   two lines, nor shares one with another */
};
_Static_assert(sizeof(struct rfs_rx_track) == 64, "rfs_rx_track layout");

/*
 * Carried from rfs_xdp to rfs_cpumap in a marked frame's XDP metadata, and
 * removed there (GRO does not merge skbs whose metadata differ).  A bare
 * frame carries none (rfs_order.h, LAZY MARKS).
 */
struct rfs_frame_meta {
	__u32 seq;		/* per (rx_cpu, cpu) */
	__u16 rx_cpu;		/* the CPU that redirected it */
	__u8 cpu;		/* the target: its kthread may run elsewhere
				   while its CPU is offline */
	__u8 magic;		/* RFS_META_MAGIC: it is ours */
};
#define RFS_META_MAGIC		0xa5

/*
 * Per RX CPU (per-CPU map, one slot), per target: the sequence number of
 * the last marked frame this CPU redirected there, and, after a flush
 * that found the target's ring full, the last one sent before it (all up
 * to it were flushed or dropped, rfs_enqueue).  Only its CPU writes it.
 */
struct rfs_tx_seq {
	__u32 seq[RFS_MAX_CPUS];
	__u32 dropped_upto[RFS_MAX_CPUS];
};

/* Global settings, one slot, written by rfsd. */
struct rfs_globals {
	__u32 sock_flow_mask;	/* sock_flow_entries - 1 */
	__u32 cpu_mask;		/* entry encoding, see rfs_sock_entry_t */
	__u32 hash_seed;	/* random per datapath: flows can't be aimed at one slot */
	__u32 cpumap_id;	/* to pick our cpumap out of xdp_cpumap_enqueue */
	__u32 nr_cpus;		/* CPUs that may be targets: possible, capped */
	__u32 nr_rx_cpus;	/* rfs_rx_track's row length: possible CPUs */
	__u32 steer_loopback;	/* a loopback interface is attached: loopback
				   sockets record too (else they are skipped,
				   rfs_flow_key_loopback) */
	__u32 early_drop_jiffies; /* how long a refusal marks its flow
				   (rfs_full_drops); 0: early drop off */
	/* The jiffy of the latest refusal on any CPU (0: none), written by
	 * rfs_sock_full_mark once per jiffy at most: while it is older
	 * than the window no flow's mark can drop, and rfs_xdp skips the
	 * flow's slot (rfs_full_any), a line per flow, for this word of a
	 * line it reads anyway.  rfsd writes the whole struct on a config
	 * change and may put an older jiffy back: early drops then wait
	 * for the next refusal, nothing more. */
	__u32 full_jiffy;
};
/* Read by every frame: one cache line, as rfs_globals' value starts on a
 * page (BPF_F_MMAPABLE; a plain array's would straddle two). */
_Static_assert(sizeof(struct rfs_globals) <= 64, "rfs_globals layout");

/*
 * Early drop: one mark per slot of rfs_sock_full, indexed by the flow
 * hash's low bits (rfs_full_index), written when a UDP socket refuses a
 * datagram (its receive buffer is full):
 *
 *	mark = (__u64)jiffy << 32 | hash		0 = never marked
 *
 * jiffy is the low 32 bits of jiffies at the refusal; the full hash is the
 * tag, so a flow that shares the slot is not dropped for another's
 * refusal.  Written only on refusals, read by rfs_xdp on a frame only
 * while some socket refused a datagram within the window
 * (rfs_globals.full_jiffy): a line per flow, not read at all the rest of
 * the time.  A fixed size: a flow that loses its slot to another is only
 * not dropped early.
 */
#define RFS_FULL_SLOTS		8192

/*
 * Per-interface settings, in each XDP program's rfs_if_cfg: two slots, of
 * which slot 0's active_slot names the one in use.  rfsd writes a slot
 * only while no frame can be reading it: the other slot whole, then it
 * flips active_slot, then waits for every program that may still read
 * the old slot to end before it writes that slot (rfs_if_push_config() in
 * daemon/lib/rfs_iface.c): a frame never sees half of one configuration
 * and half of another (a new n_allowed with the old allowed_list).  Each
 * change goes through slot 1 and ends on slot 0, which a frame reads
 * first.
 */
#define RFS_IF_CFG_SLOTS	2
struct rfs_if_config {
	__u32 flow_mask;	/* flow_cnt - 1 */
	__u32 rx_queues;
	__u32 n_allowed;	/* entries used in allowed_list */
	__u32 sample_flows;	/* nonzero: count frames per flow in rfs_flow_hits */
	/*
	 * The local path (XDP_PASS when the target is the RX CPU): a flow
	 * passed up here leaves for another CPU once local_drain_jiffies have
	 * passed since its last local frame, or, with local_handover set, by
	 * a first frame through this CPU's own cpumap queue (rfs_order.h).
	 */
	__u32 local_path;	/* 0: every frame takes the cpumap */
	__u32 local_handover;
	__u32 local_drain_jiffies;
	__u32 noguard;		/* bench only: move at once, may reorder */
	/* rfsd's own bookkeeping, kept here so a restarted rfsd adopts it */
	__u32 xdp_mode;		/* enum rfs_xdp_mode it was attached with */
	__u32 ifindex;		/* pins follow the interface's renames */
	__u32 active_slot;	/* slot 0's only: the slot in use */
	__u32 _pad;
	__u64 _line0[2];	/* the words above are a frame's first line */
	/* The second: CPUs that may be given flows. */
	__u64 allowed[RFS_CPU_WORDS];
	/*
	 * CPUs frames may still be sent to: allowed, plus CPUs being removed
	 * whose flows wait for their queue to drain so they leave in order.
	 */
	__u64 usable[RFS_CPU_WORDS];
	/* rfsd's only, never read by a frame */
	__u64 configured[RFS_CPU_WORDS];	/* the set the user asked for */
	/* allowed, as a list, for spreading flows with no desired CPU */
	__u16 allowed_list[RFS_MAX_CPUS];
	__u64 _tail[4];		/* whole lines: slot 1 starts a line too */
};
/*
 * What a steered frame reads of its interface's configuration is two
 * cache lines of slot 0 (but while a change is under way): the words up
 * to active_slot, then allowed and usable.
 * That holds because rfs_if_cfg's values start on a page
 * (BPF_F_MMAPABLE) and a slot is whole lines; tests/prog/test_xdp.c
 * (test_layout) reads where the kernel put them.
 */
_Static_assert(__builtin_offsetof(struct rfs_if_config, _line0) + 16 == 64 &&
	       __builtin_offsetof(struct rfs_if_config, allowed) == 64 &&
	       __builtin_offsetof(struct rfs_if_config, configured) == 128 &&
	       sizeof(struct rfs_if_config) % 64 == 0,
	       "rfs_if_config layout");

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
	__u64 local;		/* passed up on the RX CPU: the app runs here
				   (counted in to_desired/spread/held too) */
	__u64 switches;		/* flow moved to another CPU */
	__u64 pass_not_ip;
	__u64 pass_fragment;
	__u64 pass_other_proto;
	__u64 pass_truncated;
	__u64 pass_no_table;	/* no config, table or allowed CPU, or a
				   queue past the table */
	__u64 redirect_err;	/* CPU missing from the cpumap: passed
				   up, or dropped where the flow's earlier
				   frames may be in flight */
	__u64 no_meta;		/* redirected without metadata (no room):
				   its target can't mark it */
	__u64 early_drop;	/* dropped here: its socket refused a
				   datagram moments ago (rfs_full_drops) */
};

/* Counters of the socket-side and cpumap-side programs, per CPU. */
struct rfs_global_stats {
	__u64 dequeued;		/* frames the cpumap program ran on */
	__u64 foreign;		/* ... with metadata not ours (not from
				   rfs_xdp; its bare frames have none) */
	/*
	 * Locality at the socket, whatever steers (xdp-rfs, RPS/RFS or
	 * nothing): a recv that returned data, on a connected TCP/UDP socket
	 * whose last frame the stack processed on this CPU (hit,
	 * sk_incoming_cpu == this CPU) or on another (miss).
	 */
	__u64 recv_local;
	__u64 recv_remote;
	__u64 enqueue_drops;	/* frames the cpumap dropped: ring full */
	__u64 sock_records;	/* sock flow entries written */
	__u64 sock_clears;	/* entries cleared on close */
	__u64 sock_skipped;	/* unconnected, non-IP or loopback sockets */
	__u64 early_drop_target; /* dropped by the cpumap program, before an
				    skb: a socket on this CPU refused their
				    flow moments ago */
};

/* Map names (<= 15 characters: bpftool and the kernel truncate). */
#define RFS_MAP_SOCK_OUTER	"rfs_sock_outer"
#define RFS_MAP_SOCK_FLOWS	"rfs_sock_flows"
#define RFS_MAP_CPU_QUEUES	"rfs_cpu_queues"
#define RFS_MAP_CPUMAP		"rfs_cpu_map"
#define RFS_MAP_GLOBALS		"rfs_globals"
#define RFS_MAP_GSTATS		"rfs_gstats"
#define RFS_MAP_TX_SEQ		"rfs_tx_seq"
#define RFS_MAP_RX_TRACK	"rfs_rx_track"
#define RFS_MAP_DEV_OUTER	"rfs_dev_outer"
#define RFS_MAP_DEV_FLOWS	"rfs_dev_flows"
#define RFS_MAP_IF_CFG		"rfs_if_cfg"
#define RFS_MAP_IF_STATS	"rfs_if_stats"
#define RFS_MAP_FLOW_HITS	"rfs_flow_hits"
#define RFS_MAP_SOCK_FULL	"rfs_sock_full"

/*
 * Pin layout, below the pin dir (default /sys/fs/bpf/rfs):
 *	v5/maps/<map>		shared maps
 *	v5/links/<prog>		tracing, sockops and cpumap-side links
 *	v5/if/<ifname>/		prog and the interface's own maps
 */
#define RFS_PIN_DIR_DEFAULT	"/sys/fs/bpf/rfs"
#define RFS_PIN_LAYOUT		"v5"

#endif /* RFS_COMMON_H */
