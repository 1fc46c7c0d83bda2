/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-order rule: when a flow may leave the CPU its last frame went to.
 * Everything that records or tests that rule is here, pure (no helpers, no
 * maps), so the BPF programs, rfsctl and the simulator in tests/unit all
 * run this code.  rfs_pick_cpu() (rfs_decide.h) takes its answer.
 *
 * THE INVARIANT
 *	A flow moves from CPU A to CPU B only when every frame of it that was
 *	sent to A has been delivered to the stack (left A's cpumap ring, its
 *	cpumap program, GRO and GRO's rx_list), or could never be (dropped).
 *	Until then its frames keep going to A, behind the earlier ones.
 *
 * HOW IT IS KEPT, hook by hook
 *  rfs_xdp (RX CPU r, NAPI):
 *	- redirects to target t; a marked frame (see LAZY MARKS) with a
 *	  sequence number per (r, t), taken from r's own rfs_tx_seq (only r
 *	  writes it) and carried in the frame's XDP metadata; records
 *	  {t, r, seq} in the flow's dev entry (rfs_record_remote), or for a
 *	  bare frame the number the next marked one will take (rfs_tx_number).
 *	  Frames from r reach t's ring in the order r sent them:
 *	  r's bulk queue for t is FIFO and is flushed whole into the ring
 *	  under the ring's producer lock; a full ring drops frames but never
 *	  reorders the rest.  So a per-(r, t) number needs no claim on a
 *	  shared tail, and frames of other RX CPUs interleaving in t's ring
 *	  can't make a flow look drained early.
 *	- passes a frame up on r itself when t == r (the local path), and
 *	  records {r, LOCAL, jiffies} (rfs_record_local).
 *	- drops a frame before any of the above while its socket refuses
 *	  datagrams (early drop, rfs_full_drops): never sent, it takes no
 *	  number and leaves the entry as the flow's last sent frame left it.
 *  rfs_cpumap (target t, kthread, per marked frame, before GRO):
 *	- marks {seq, epoch} of the frame in rfs_rx_track[t][r]
 *	  (rfs_track_dequeued), keeping older marks by epoch and by jiffy
 *	  and the newest one already delivered, so that steady traffic from
 *	  r can't roll a paused flow's proof away; strips the metadata.
 *  rfs_kthread_batch (tp_btf/xdp_cpumap_kthread on t, once per batch,
 *  after the cpumap program ran on the batch and before it enters GRO):
 *	- proves which earlier batches are delivered (rfs_delivered_epoch)
 *	  from t's own GRO node, and when it proves anything starts a new
 *	  epoch for the batches after this one.
 *  rfs_xdp, deciding whether a flow may move (rfs_remote_drained):
 *	- the flow's last frame is marked dequeued in an epoch that is
 *	  proven delivered; or it is marked dequeued and t's kthread is
 *	  asleep (it only sleeps on an empty ring after a full GRO flush).
 *	  A frame lost on a full ring is passed by the next marked frame
 *	  from r to t that gets through: since the flow stays on t
 *	  meanwhile, marked, that is at most its own next frame.
 *	- a local flow: its last frame was passed local_drain_jiffies ago
 *	  (rfs_local_drained); or, when the kernel flushes NAPI GRO fully at
 *	  each poll end (HZ < 1000, no gro_flush_timeout), the flow first
 *	  takes one frame through r's own cpumap queue: r's kthread cannot
 *	  run before the NAPI poll that passed the earlier frames has ended
 *	  and flushed them, so from then on it is an ordinary remote flow.
 *
 * LAZY MARKS
 *	Only a frame that a proof may have to cover carries a mark: a frame
 *	of a flow held on its remote path (rfs_choice_marked).  The others
 *	go bare: no metadata, no number taken, nothing written on the
 *	target, nor in the flow's entry while the number it records stays
 *	(rfs_dev_flow_update).  A bare frame's entry records the number the
 *	next marked frame from r to t will take; that frame is behind it in r's FIFO
 *	path to t, so it is dequeued after the bare one, in the same batch
 *	or a later one, and its mark covers the bare frame in every rule
 *	above (delivered epoch, asleep kthread).  So a flow whose last frame
 *	went bare and that wants to move sends its next frame marked, still
 *	to t, and moves once that one is proven (or a marked frame of
 *	another flow from r to t covered it first): one frame later than if
 *	every frame were marked, never earlier.  Numbers advance only with
 *	marked frames, each of which t dequeues (or drops), so the wrap
 *	guard below still sees every number go by.  Bare and marked frames
 *	share GRO and its proof: the epoch of a mark covers the batches
 *	before it.
 *
 * EPOCHS
 *	An epoch is the run of batches between two proofs, not one batch: a
 *	proof at batch k covers every batch before k, which is every epoch
 *	before k's, so after a full proof the delivered epoch is exactly the
 *	current one minus one.  Then, of the marks rfs_rx_track keeps, the
 *	newest one from an earlier epoch is always delivered, and done keeps
 *	it when steady traffic from the same RX CPU rolls the others on: a
 *	paused flow's proof is never lost.  (With one epoch per batch a proof
 *	can skip several epochs at once and lose the marks in between.)
 *	Age-based proofs (HZ >= 1000) may lag by a jiffy or two of epochs;
 *	the marks rolled by jiffy cover that.
 *
 * WORST CASE (what "bounded" means here)
 *	A flow that wants to move moves at its first frame that arrives after
 *	its previous frame has been proven delivered; if that frame went bare,
 *	the flow first sends one marked frame (LAZY MARKS).  On a busy target
 *	that proof comes with the second GRO flush point after the frame was
 *	dequeued (an epoch ends at a proof, so the frame's own epoch is
 *	vouched for by the next one): at most 128 packets later when
 *	HZ < 1000 (every flush point is full).  With HZ >= 1000 the kernel
 *	flushes only skbs from earlier jiffies while its ring is busy, and
 *	the proof comes at least three jiffies after the dequeue; under
 *	sustained overload an age-based proof can lag further than the marks
 *	kept by jiffy reach, and the flow then waits for a pause in its RX
 *	CPU's traffic to that target (tests/unit/test_order_sim.c measures
 *	both: none past the bound with full flushes, under 1 in 10^4 with
 *	flush_old).  On an idle target the proof is immediate: its kthread
 *	sleeps only after a full flush.  So the delay is the old CPU's ring
 *	latency plus that flush lag.  A flow whose frames never leave such a
 *	gap never moves, as with the kernel's RFS (which waits for the
 *	backlog head to pass the flow's tail): nothing is ever reordered to
 *	make it move.
 */
#ifndef RFS_ORDER_H
#define RFS_ORDER_H

#include "rfs_common.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Wrap-safe "a is at or after b" for 32-bit counters. */
static __always_inline int rfs_seq_after_eq(__u32 a, __u32 b)
{
	return (__s32)(a - b) >= 0;
}

/*
 * How far a kept mark may trail the frames it is compared with.  Sequence
 * numbers are 32 bits: a mark left behind for 2^31 frames would look newer
 * than the frames it trails and vouch for them.  So the target drops a kept
 * mark once the frames it dequeues from that RX CPU are this far past it
 * (rfs_track_dequeued), and a mark covers a frame only when it is at most
 * this far after it (rfs_mark_covers).  A flow that paused that long waits
 * for its next frame to be proven instead: one held frame, never a
 * reorder.
 */
#define RFS_MARK_MAX_AGE	(1u << 30)

/* Does mark sequence m cover frame seq (at or after it, not too far)? */
static __always_inline int rfs_mark_covers(__u32 m, __u32 seq)
{
	return m - seq < RFS_MARK_MAX_AGE;
}

/* ---- the dev flow table ------------------------------------------------ */

/*
 * Index of a flow's entry in a dev flow table: queue-major, slot-minor;
 * entry 0 is the header.  Each RX queue's entries are one run of memory,
 * so the CPUs polling two queues write cache lines of their own (only a
 * run's two ends may share a line with the next run).  The slot uses the
 * hash's high bits: the sock flow table indexes by its low bits, and two
 * flows that collide there should not also collide here.
 *
 * Every RX queue has entries of its own, because each entry has one
 * writer: the CPU that polls its queue.  Two RX CPUs writing one entry
 * would let a flow be "proven drained" by the other CPU's frames.  rfsd
 * sizes the table by the queues the device allocated, which a frame's
 * queue index can't reach; a queue past the table (a device with more
 * queues than RFS_MAX_RX_QUEUES) gets 0: no entry, its frames go up the
 * stack unsteered.
 */
static __always_inline __u32 rfs_dev_index(const struct rfs_dev_flow *hdr,
					   __u32 hash, __u32 rxq)
{
	__u32 flow_mask = hdr->last;
	__u32 rx_queues = hdr->rx_cpu;

	if (rxq >= rx_queues)
		return 0;
	return 1 + rxq * (flow_mask + 1) + ((hash >> 8) & flow_mask);
}

/* rfs_dev_index() undone: the slot and queue of a flow entry's index. */
static __always_inline int rfs_dev_locate(const struct rfs_dev_flow *hdr,
					  __u32 index, __u32 *slot, __u32 *rxq)
{
	__u32 flow_cnt = hdr->last + 1;

	if (!(hdr->flags & RFS_DEV_TABLE_HDR) || !hdr->rx_cpu || !index ||
	    index > flow_cnt * hdr->rx_cpu)
		return 0;
	*rxq = (index - 1) / flow_cnt;
	*slot = (index - 1) % flow_cnt;
	return 1;
}

static __always_inline int rfs_dev_table_ok(const struct rfs_dev_flow *hdr)
{
	return (hdr->flags & RFS_DEV_TABLE_HDR) && hdr->rx_cpu;
}

static __always_inline struct rfs_dev_flow rfs_dev_table_header(__u32 flow_cnt,
								__u32 rx_queues)
{
	struct rfs_dev_flow h = {
		.last = flow_cnt - 1,
		.rx_cpu = (__u16)rx_queues,
		.flags = RFS_DEV_TABLE_HDR,
	};

	return h;
}

/* An entry is one 64-bit word: stored and loaded whole (rfs_common.h). */
union rfs_dev_flow_word {
	struct rfs_dev_flow f;
	__u64 w;
};

static __always_inline struct rfs_dev_flow
rfs_dev_flow_load(const struct rfs_dev_flow *df)
{
	union rfs_dev_flow_word u;

	u.w = *(const volatile __u64 *)df;
	return u.f;
}

/*
 * Store n unless df holds it already.  A steady flow records the same
 * entry frame after frame (a bare frame the number only marked frames
 * move, a local one the jiffy): skipping the store keeps its cache line
 * clean.  No reader can tell the difference: no field of an entry is
 * refreshed by the store itself, and the poller of the entry's RX queue
 * is its one writer (rfsd writes only a table's header).  Compared with
 * what df holds now, not with the caller's snapshot: that may come from
 * the table before a resize, and the flow's state must still reach the
 * current one, or rfsd would judge the old entry settled (never written
 * again) while frames still go out on it.
 */
static __always_inline void rfs_dev_flow_update(struct rfs_dev_flow *df,
						struct rfs_dev_flow n)
{
	union rfs_dev_flow_word u = { .f = n };

	if (*(const volatile __u64 *)df != u.w)
		*(volatile __u64 *)df = u.w;
}

static __always_inline __u32 rfs_dev_table_entries(__u32 flow_cnt,
						   __u32 rx_queues)
{
	return 1 + flow_cnt * rx_queues;
}

/*
 * The number a redirected frame records, from its RX CPU's counter for
 * the target (*tx, in rfs_tx_seq): a marked frame takes the next one and
 * carries it; a bare one records it without taking it (LAZY MARKS).
 */
static __always_inline __u32 rfs_tx_number(__u32 *tx, int marked)
{
	__u32 seq = *tx + 1;

	if (marked)
		*tx = seq;
	return seq;
}

/* The record half of the rule: what a frame leaves in its flow's entry.
 * seq from rfs_tx_number(); bare: the frame carries no mark. */
static __always_inline void rfs_record_sent(struct rfs_dev_flow *df,
					    __u32 cpu, __u32 rx_cpu,
					    __u32 seq, int bare)
{
	struct rfs_dev_flow n = {
		.last = seq,
		.rx_cpu = (__u16)rx_cpu,
		.cpu = (__u8)cpu,
		.flags = RFS_DEV_FLOW_VALID | (bare ? RFS_DEV_FLOW_BARE : 0),
	};

	rfs_dev_flow_update(df, n);
}

static __always_inline void rfs_record_remote(struct rfs_dev_flow *df,
					      __u32 cpu, __u32 rx_cpu,
					      __u32 seq)
{
	rfs_record_sent(df, cpu, rx_cpu, seq, 0);
}

static __always_inline void rfs_record_local(struct rfs_dev_flow *df,
					     __u32 cpu, __u64 jiffies)
{
	struct rfs_dev_flow n = {
		.last = (__u32)jiffies,
		.rx_cpu = (__u16)cpu,
		.cpu = (__u8)cpu,
		.flags = RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_LOCAL,
	};

	rfs_dev_flow_update(df, n);
}

/* ---- the target side ------------------------------------------------- */

/*
 * rfs_rx_track's row of a target has one track per possible RX CPU: a
 * frame's RX CPU can be any CPU the kernel has, past RFS_MAX_CPUS too,
 * and two RX CPUs must never share a track (each numbers its own frames).
 * A track is one cache line and the map's values start on a page, so no
 * two tracks share a line.
 */

/* rfsd sizes rfs_rx_track to this many tracks before load. */
static __always_inline __u32 rfs_rx_track_entries(__u32 nr_cpus,
						  __u32 nr_rx_cpus)
{
	return nr_cpus * nr_rx_cpus;
}

/* Past the map when either CPU is out of range: the lookup then fails
 * and nothing is proven. */
static __always_inline __u32 rfs_rx_track_index(__u32 target, __u32 rx_cpu,
						__u32 nr_rx_cpus)
{
	if (target >= RFS_MAX_CPUS || rx_cpu >= nr_rx_cpus)
		return RFS_MAX_CPUS * nr_rx_cpus;
	return target * nr_rx_cpus + rx_cpu;
}

static __always_inline __u64 rfs_mark(__u32 seq, __u32 epoch)
{
	return ((__u64)epoch << 32) | seq;
}

static __always_inline __u32 rfs_mark_seq(__u64 m)
{
	return (__u32)m;
}

static __always_inline __u32 rfs_mark_epoch(__u64 m)
{
	return (__u32)(m >> 32);
}

static __always_inline int rfs_mark_newer(__u64 a, __u64 b)
{
	return a && (!b || (__s32)(rfs_mark_seq(a) - rfs_mark_seq(b)) > 0);
}

/* Is frame seq covered by mark m, and m's epoch delivered? */
static __always_inline int rfs_mark_delivers(__u64 m, __u32 seq,
					     __u32 delivered)
{
	return m && rfs_mark_covers(rfs_mark_seq(m), seq) &&
	       rfs_seq_after_eq(delivered, rfs_mark_epoch(m));
}

/* A kept mark the dequeued frames have left RFS_MARK_MAX_AGE behind. */
static __always_inline __u64 rfs_mark_expire(__u64 m, __u32 seq)
{
	return m && seq - rfs_mark_seq(m) >= RFS_MARK_MAX_AGE ? 0 : m;
}

/* Is mark m's epoch delivered? */
static __always_inline int rfs_mark_done(__u64 m, __u32 delivered)
{
	return m && rfs_seq_after_eq(delivered, rfs_mark_epoch(m));
}

/*
 * A frame (seq from one RX CPU) was dequeued in batch epoch, at jiffy
 * (that of the last batch), while the target's delivered epoch is
 * delivered.  Returns the new track; the caller stores each changed mark
 * as one 64-bit store, so a reader on another CPU only ever sees true
 * marks.  First the marks already delivered are kept in done (under
 * steady traffic from this RX CPU nothing else would remember them), then
 * the older marks roll.
 */
static __always_inline struct rfs_rx_track
rfs_track_dequeued(struct rfs_rx_track t, __u32 seq, __u32 epoch,
		   __u32 delivered, __u32 jiffy)
{
	t.last = rfs_mark_expire(t.last, seq);
	t.done = rfs_mark_expire(t.done, seq);
	t.prev = rfs_mark_expire(t.prev, seq);
	t.jiffy1 = rfs_mark_expire(t.jiffy1, seq);
	t.jiffy2 = rfs_mark_expire(t.jiffy2, seq);
	/* newest first: last, prev, jiffy1, jiffy2 */
	if (rfs_mark_done(t.last, delivered))
		t.done = t.last;
	else if (rfs_mark_done(t.prev, delivered) &&
		 rfs_mark_newer(t.prev, t.done))
		t.done = t.prev;
	else if (rfs_mark_done(t.jiffy1, delivered) &&
		 rfs_mark_newer(t.jiffy1, t.done))
		t.done = t.jiffy1;
	else if (rfs_mark_done(t.jiffy2, delivered) &&
		 rfs_mark_newer(t.jiffy2, t.done))
		t.done = t.jiffy2;
	if (t.last && t.jiffy != jiffy) {
		t.jiffy2 = t.jiffy1;
		t.jiffy1 = t.last;
	}
	if (t.last && rfs_mark_epoch(t.last) != epoch)
		t.prev = t.last;
	t.last = rfs_mark(seq, epoch);
	t.jiffy = jiffy;
	return t;
}

/*
 * Has frame seq (from the RX CPU this track belongs to) been delivered?
 * idle: the target's kthread was seen asleep after the track was read.
 */
static __always_inline int rfs_remote_drained(const struct rfs_rx_track *t,
					      __u32 seq, __u32 delivered,
					      int idle)
{
	if (rfs_mark_delivers(t->done, seq, delivered) ||
	    rfs_mark_delivers(t->last, seq, delivered) ||
	    rfs_mark_delivers(t->prev, seq, delivered) ||
	    rfs_mark_delivers(t->jiffy1, seq, delivered) ||
	    rfs_mark_delivers(t->jiffy2, seq, delivered))
		return 1;
	return idle && t->last && rfs_mark_covers(rfs_mark_seq(t->last), seq);
}

/*
 * What t's kthread tracepoint can prove at the start of a batch: the GRO
 * node state left by the batches before it.  Frames of batch epoch e
 * entered GRO before the tracepoint of batch e + 1 fired.
 */
struct rfs_gro_view {
	__u32 has_gro;		/* this kernel's cpumap runs GRO (6.15+) */
	__u32 rx_count;		/* skbs waiting in GRO's rx_list */
	__u64 bitmask;		/* GRO buckets holding skbs */
	__u64 oldest_age;	/* the oldest held skb's jiffies (if aged) */
	__u32 aged;		/* held buckets whose age was read */
	__u32 _pad;
};

/*
 * Fold one held bucket's oldest skb (its napi_gro_cb age, in jiffies)
 * into the view.  The first age read is taken as it is: no sentinel, since
 * jiffies start at INITIAL_JIFFIES (2^32 less five minutes on 64-bit),
 * far from any value a signed difference could order against ~0.
 */
static __always_inline void rfs_gro_view_age(struct rfs_gro_view *v,
					     __u64 age)
{
	if (!v->aged || (__s64)(age - v->oldest_age) < 0)
		v->oldest_age = age;
	v->aged++;
}

/*
 * Batch epoch (its frames were just dequeued) starts its GRO stage at
 * jiffy now: note that in the history, and set *delivered to the highest
 * epoch whose frames are all delivered.  Returns 0 when nothing can be
 * proven now.
 *  - no GRO stage: batches before this one went straight to the stack;
 *  - rx_list empty and no skb held: likewise;
 *  - rx_list empty, skbs held, the oldest from jiffy A: a frame that
 *    entered GRO in an earlier jiffy is not held (a held skb is as old as
 *    its first segment) and not in rx_list, so it is delivered.  Batches
 *    before the last one seen in a jiffy < A entered GRO before A.
 */
static __always_inline int rfs_delivered_epoch(struct rfs_jiffy_epoch *hist,
					       const struct rfs_gro_view *g,
					       __u32 epoch, __u64 now,
					       __u32 *delivered)
{
	struct rfs_jiffy_epoch *h = &hist[now & (RFS_EPOCH_HISTORY - 1)];
	__u32 best = 0;
	int found = 0, i;

	h->jiffy = now;
	h->epoch = epoch;
	if (!g->has_gro || (!g->rx_count && !g->bitmask)) {
		*delivered = epoch - 1;
		return 1;
	}
	if (g->rx_count || !g->aged)
		return 0;
	for (i = 0; i < RFS_EPOCH_HISTORY; i++) {
		const struct rfs_jiffy_epoch *e = &hist[i];

		if (!e->jiffy || (__s64)(e->jiffy - g->oldest_age) >= 0)
			continue;
		if (!found || rfs_seq_after_eq(e->epoch, best))
			best = e->epoch;
		found = 1;
	}
	if (found)
		*delivered = best - 1;
	return found;
}

/* ---- the local path ---------------------------------------------------- */

static __always_inline int rfs_local_drained(const struct rfs_dev_flow *cur,
					     __u64 now, __u32 drain_jiffies)
{
	return (__s32)((__u32)now - cur->last) >= (__s32)drain_jiffies;
}

/* ---- the question rfs_xdp asks ----------------------------------------- */

/*
 * Is every frame on the flow's current path delivered, from what the
 * asker read?  The local path by the age of its last frame; a remote
 * path by its marks (t, and the target's delivered epoch), or by its last
 * frame's mark and the target's kthread seen asleep after the marks were
 * read (idle).  t NULL: the marks could not be read, nothing is proven.
 * rfs_xdp asks first with idle 0 and reads the kthread's state only when
 * the marks prove nothing; the simulator asks the same way.
 */
static __always_inline int rfs_path_drained(const struct rfs_dev_flow *cur,
					    const struct rfs_rx_track *t,
					    __u32 delivered, int idle,
					    __u64 now, __u32 drain_jiffies)
{
	if (cur->flags & RFS_DEV_FLOW_LOCAL)
		return rfs_local_drained(cur, now, drain_jiffies);
	return t && rfs_remote_drained(t, cur->last, delivered, idle);
}

#endif /* RFS_ORDER_H */
