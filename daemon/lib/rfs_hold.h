/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a flow still holds its CPU, the pure half (rfs_hold.c): the drain
 * test of include/rfs_order.h on one dev flow entry, as rfsd asks it
 * before it lets a leaving CPU go, with the reason kept so that status,
 * explain, /metrics and the log can say which flows a CPU waits for.
 * No maps, no clock: rfs_devtab.c reads them; tests/unit/test_hold.c.
 *
 * A CPU is leaving an interface when it was taken out of its set (or
 * went offline) while flows had frames in flight there: no new flows,
 * and usable until each of its flows is proven drained, which a flow
 * that never leaves a gap never is: rfsd reports the wait.
 */
#ifndef RFS_HOLD_H
#define RFS_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "rfs_common.h"

enum rfs_hold_why {
	RFS_HOLD_NONE,		/* drained: free to leave */
	RFS_HOLD_LOCAL,		/* passed up on its RX CPU less than
				   local_drain_jiffies ago */
	RFS_HOLD_QUEUED,	/* its last frame not dequeued yet (or lost
				   on a full ring, not passed yet) */
	RFS_HOLD_NO_PROOF,	/* dequeued, not proven delivered, kthread
				   running: GRO may hold it */
};

/* What the drain test reads for one entry. */
struct rfs_hold_in {
	struct rfs_dev_flow f;
	bool in_cpumap;		/* its CPU has a cpumap entry */
	/* remote: the target's marks for f.rx_cpu and its delivered epoch */
	struct rfs_rx_track track;
	__u32 delivered;
	bool idle;		/* target's kthread asleep after the reads */
	bool quiet;		/* ... and at every look for a second */
	bool settled;		/* no frame can be sent to f.cpu on this
				   entry any more, since an RCU wait that
				   ended before idle was read: a replaced
				   table, or a CPU out of the allowed set */
	bool have_tx;		/* dropped_upto could be read */
	__u32 dropped_upto;	/* f.rx_cpu's last flush to f.cpu that
				   found the ring full */
	/* local: jiffies now (read after the entry) */
	bool have_jiffies;
	__u64 jiffies;
	__u32 drain_jiffies;
};

/*
 * The drain test as its reason; RFS_HOLD_NONE when the flow no longer
 * keeps its CPU: not valid; local and rfs_local_drained() (unknown
 * jiffies count as drained: the program never waits on a guess); a CPU
 * without a cpumap entry; a target asleep for a second with a full-ring
 * flush at or after the flow's frame (dequeued or lost, and lost ones
 * never will be); else rfs_remote_drained(), the program's own test; a
 * bare last frame, settled, with its target asleep: sent before that RCU
 * wait, which ended its NAPI poll and so flushed it into the ring, and
 * delivered by a kthread asleep since.
 */
enum rfs_hold_why rfs_hold_judge(const struct rfs_hold_in *in);

/* "local", "queued", "no_proof" ("none"), and the reason in words. */
const char *rfs_hold_why_name(enum rfs_hold_why why);
const char *rfs_hold_why_words(enum rfs_hold_why why);

/* rfs_dev_index() backwards: false for the header or past the table. */
bool rfs_hold_locate(const struct rfs_dev_flow *hdr, __u32 index,
		     __u32 *slot, __u32 *rxq);

#define RFS_HOLD_SHOW	4	/* flows shown per CPU; the rest counted */

struct rfs_held_flow {
	__u32 index;		/* in its dev table (explain's dev slot) */
	__u32 slot;		/* (hash >> 8) & flow_mask */
	__u32 rxq;
	__u32 flow_mask;	/* its table's */
	bool prev_table;	/* the table before the last resize */
	struct rfs_dev_flow f;
	enum rfs_hold_why why;
	bool kthread_asleep;	/* the target's kthread, as judged */
};

/* The flows a leaving CPU waits for. */
struct rfs_hold_cpu {
	__u32 cpu;
	__u64 since_ms;		/* monotonic ms it started leaving */
	__u32 flows;		/* held there, all tables */
	__u32 shown;
	struct rfs_held_flow first[RFS_HOLD_SHOW];
};

/* Count h into c, keeping the first RFS_HOLD_SHOW. */
void rfs_hold_add(struct rfs_hold_cpu *c, const struct rfs_held_flow *h);

/* "dev slot 25 (rx queue 0, hash & 0x000fff00 = 0x00000c00), RX CPU 0
 * -> CPU 1, seq 77: <why>" (the table index, as explain shows it). */
char *rfs_hold_flow_words(const struct rfs_held_flow *h, char *buf,
			  size_t len);

/* Warn about a CPU still leaving after waited_ms at bound_ms, then each
 * time the wait doubles, so a stuck removal is named again without
 * flooding the log.  *next_ms: 0 at the start; bound_ms 0: never. */
bool rfs_hold_warn_due(__u64 waited_ms, __u64 bound_ms, __u64 *next_ms);

#endif /* RFS_HOLD_H */
