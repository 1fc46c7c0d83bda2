/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsctl explain: what one flow's next frame will do, and why.
 * rfs_if_explain() reads the state rfs_xdp reads for the flow; the pure
 * half (tests/unit/test_explain.c) feeds it to the code the XDP program
 * runs, in its order: the hash, the sock slot, the dev table's entry (or
 * the previous table's), rfs_pick_cpu(), and on HELD the drain test and
 * rfs_pick_cpu() again.  Two inputs exist only in the kernel at frame
 * time: the CPU the frame arrives on (each case is one RX CPU), and
 * whether the target's cpumap kthread is asleep then (both are answered).
 */
#ifndef RFS_EXPLAIN_H
#define RFS_EXPLAIN_H

#include "rfs_decide.h"
#include "rfs_dp.h"
#include "rfs_hash.h"

/* The state rfs_xdp reads for a flow, as the maps hold it now. */
struct rfs_explain_in {
	struct rfs_flow_key key;
	bool steerable;			/* TCP or UDP with ports */
	struct rfs_globals g;		/* hash seed, sock mask, cpu mask */
	struct rfs_if_config cfg;	/* the interface's rfs_if_cfg */
	bool have_sock;			/* its sock slot could be read */
	rfs_sock_entry_t sock_entry;
	bool have_jiffies;		/* jiffies read (rfs_read_jiffies()) */
	__u64 jiffies;
	__u64 in_cpumap[RFS_CPU_WORDS];	/* CPUs with a cpumap entry */
};

/* One RX queue's entry for the flow and the ordering state behind it. */
struct rfs_explain_queue {
	__u32 rxq;
	bool have_table;		/* a current table with a header */
	__u32 index;			/* rfs_dev_index() in it */
	struct rfs_dev_flow entry;
	bool have_prev;			/* a previous table (after a resize) */
	__u32 prev_index;
	struct rfs_dev_flow prev_entry;
	/* rfs_xdp's st.cur: entry, or prev_entry if only that is valid */
	struct rfs_dev_flow cur;
	bool cur_from_prev;
	/* for a remote cur: the target's mark row for cur.rx_cpu, its
	 * queue, the RX CPU's sequence counters toward it */
	bool have_track;
	struct rfs_rx_track track;
	bool have_cpu_queue;
	struct rfs_cpu_queue q;
	bool have_tx;
	__u32 tx_seq;			/* last seq cur.rx_cpu sent to cur.cpu */
	__u32 tx_dropped_upto;
	int kthread_asleep_now;		/* -1: unknown; seen in /proc now */
	enum rfs_hold_why hold;		/* rfs_hold_judge() on cur */
	__u64 leaving_since_ms;		/* cur.cpu leaving since (mono ms) */
};

enum rfs_explain_drain {
	RFS_XD_NOT_ASKED,	/* not HELD: the program doesn't ask */
	RFS_XD_LOCAL,		/* rfs_local_drained() */
	RFS_XD_REMOTE,		/* rfs_remote_drained() */
	RFS_XD_NO_STATE,	/* remote, but no track/queue entry: 0 */
};

enum rfs_explain_action {
	RFS_XA_PASS_PROTO,	/* not TCP/UDP: pass_other_proto */
	RFS_XA_PASS_NO_TABLE,	/* no table or no CPU allowed: pass_no_table */
	RFS_XA_LOCAL,		/* XDP_PASS on the RX CPU (local path) */
	RFS_XA_REDIRECT,	/* into cpu's cpumap queue */
	RFS_XA_REDIRECT_ERR,	/* cpu has no cpumap entry: redirect_err */
};

/* What one frame arriving on rx_cpu does. */
struct rfs_explain_case {
	__u32 rx_cpu;
	struct rfs_choice first;	/* rfs_pick_cpu(cur_drained = 0) */
	enum rfs_explain_drain drain;
	bool age_known;			/* RFS_XD_LOCAL: the last local */
	__s32 age;			/* frame's age, in jiffies */
	bool proven;			/* RFS_XD_REMOTE: drained without */
	bool if_asleep;			/* and with the kthread asleep */
	/* drained as the program will see it: 1, 0, or -1 when it depends
	 * on what only the kernel knows then (kthread asleep, jiffies) */
	int drained;
	struct rfs_choice then;		/* rfs_pick_cpu(cur_drained = 1) */
	struct rfs_choice result;	/* with drained as known (0 if -1) */
	enum rfs_explain_action action;
	enum rfs_explain_action action_drained;	/* when drained is -1 */
};

/* The hash and the desired CPU as rfs_xdp computes them. */
static inline __u32 rfs_explain_hash(const struct rfs_explain_in *in)
{
	return rfs_flow_hash(&in->key, in->g.hash_seed);
}

static inline __u32 rfs_explain_desired(const struct rfs_explain_in *in,
					__u32 hash)
{
	return in->have_sock ? rfs_sock_entry_cpu(in->sock_entry, hash,
						  in->g.cpu_mask) : RFS_NO_CPU;
}

/* The frame's fate when it arrives on rx_cpu from queue q. */
void rfs_explain_case(const struct rfs_explain_in *in,
		      const struct rfs_explain_queue *q, __u32 rx_cpu,
		      struct rfs_explain_case *out);
/* Names for JSON: "new", "keep", ...; "pass", "local", "cpumap"; the
 * case in one word ("held_or_switch": as only the kernel will know). */
const char *rfs_explain_verdict_name(__u8 verdict);
const char *rfs_explain_action_name(enum rfs_explain_action a);
const char *rfs_explain_next(const struct rfs_explain_case *c);
/* The case in words: "keep: ... because ...".  Returns buf. */
char *rfs_explain_words(const struct rfs_explain_in *in,
			const struct rfs_explain_queue *q,
			const struct rfs_explain_case *c, char *buf,
			size_t len);

#endif /* RFS_EXPLAIN_H */
