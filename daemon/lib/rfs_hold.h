/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a flow still holds its CPU, the pure half (rfs_hold.c): the
 * in-order rule's drain test (include/rfs_order.h) asked of one dev flow
 * entry the way rfsd asks it before it lets a leaving CPU go
 * (rfs_devtab_busy), with the answer kept instead of a yes or no, so
 * that status, explain, /metrics and the log can say which flows a CPU
 * waits for and why.  No maps, no clock: the caller reads them
 * (rfs_devtab.c, rfs_if_hold.c); tests/unit/test_hold.c feeds it.
 *
 * A CPU is leaving an interface when it was taken out of its set (or
 * went offline) while flows still had frames in flight there: it gets no
 * new flows, and stays usable until each of its flows is proven drained
 * (rfs_if_set.c).  A flow that never leaves a gap is never proven
 * drained, so the wait has no bound of its own: rfsd reports it.
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
	RFS_HOLD_QUEUED,	/* its last frame is not dequeued yet: still
				   in the target's ring (ring busy) or the RX
				   CPU's bulk queue, or lost on a full ring
				   and not yet passed by a later frame */
	RFS_HOLD_NO_PROOF,	/* dequeued, but no delivered epoch covers
				   it yet and the target's kthread is
				   running: GRO may still hold it */
};

/* What the drain test reads for one entry (rfs_devtab_busy's reads). */
struct rfs_hold_in {
	struct rfs_dev_flow f;
	bool in_cpumap;		/* its CPU has a cpumap entry */
	/* remote: the target's marks for f.rx_cpu and its delivered epoch */
	struct rfs_rx_track track;
	__u32 delivered;
	bool idle;		/* the target's kthread asleep, seen after
				   the marks were read */
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
 * The drain test, kept as its reason; RFS_HOLD_NONE exactly when the
 * flow no longer keeps its CPU (rfs_devtab_busy() counts the rest).
 *  - not valid: nothing to wait for;
 *  - local: rfs_local_drained(), unknown jiffies counting as drained (the
 *    program reads them at the frame and never waits on a guess);
 *  - a CPU without a cpumap entry is never waited on;
 *  - a target asleep for a second with a full-ring flush at or after the
 *    flow's frame: that frame was dequeued or lost, and lost ones never
 *    will be;
 *  - else rfs_remote_drained(), the program's own test;
 *  - a bare last frame, settled, and its target asleep: sent before
 *    that RCU wait, which ended its NAPI poll and so flushed it into the
 *    ring; a kthread asleep since has delivered it.
 */
enum rfs_hold_why rfs_hold_judge(const struct rfs_hold_in *in);

/* "local", "queued", "no_proof" ("none" when not held): for JSON. */
const char *rfs_hold_why_name(enum rfs_hold_why why);
/* The reason in words, for rfsctl and the log. */
const char *rfs_hold_why_words(enum rfs_hold_why why);

/* Where a dev table index is (rfs_dev_index() backwards): its slot and
 * RX queue; false for the header or an index past the table. */
bool rfs_hold_locate(const struct rfs_dev_flow *hdr, __u32 index,
		     __u32 *slot, __u32 *rxq);

/* The flows shown per leaving CPU; the rest are counted. */
#define RFS_HOLD_SHOW	4

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

/* Count h into c, keeping it if fewer than RFS_HOLD_SHOW are kept. */
void rfs_hold_add(struct rfs_hold_cpu *c, const struct rfs_held_flow *h);

/* One held flow in words: "dev slot 25 (rx queue 0, hash & 0x000fff00 =
 * 0x00000c00), RX CPU 0 -> CPU 1, seq 77: <why>"; the dev slot is the
 * table index, as rfsctl explain shows it.  Returns buf. */
char *rfs_hold_flow_words(const struct rfs_held_flow *h, char *buf,
			  size_t len);

/*
 * When to warn about a CPU still leaving after waited_ms: at bound_ms,
 * then each time the wait doubles, so a stuck removal is named again
 * without flooding the log.  *next_ms (0 at the start of a removal) is
 * the wait of the next warning; bound_ms 0 never warns.
 */
bool rfs_hold_warn_due(__u64 waited_ms, __u64 bound_ms, __u64 *next_ms);

#endif /* RFS_HOLD_H */
