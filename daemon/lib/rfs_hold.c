// SPDX-License-Identifier: GPL-2.0
#include "rfs_dp.h"
#include "rfs_order.h"

enum rfs_hold_why rfs_hold_judge(const struct rfs_hold_in *in)
{
	const struct rfs_dev_flow *f = &in->f;

	if (!(f->flags & RFS_DEV_FLOW_VALID))
		return RFS_HOLD_NONE;
	/* unknown jiffies count as drained: the program never waits on a
	 * guess */
	if (f->flags & RFS_DEV_FLOW_LOCAL)
		return in->have_jiffies &&
		       !rfs_local_drained(f, in->jiffies, in->drain_jiffies) ?
		       RFS_HOLD_LOCAL : RFS_HOLD_NONE;
	if (!in->in_cpumap)
		return RFS_HOLD_NONE;
	/* asleep a second with a full-ring flush at or after its frame:
	 * dequeued or lost, and lost ones never will be */
	if (in->quiet && in->have_tx &&
	    rfs_seq_after_eq(in->dropped_upto, f->last))
		return RFS_HOLD_NONE;
	if (rfs_remote_drained(&in->track, f->last, in->delivered, in->idle))
		return RFS_HOLD_NONE;
	/* a bare last frame (rfs_order.h, LAZY MARKS), settled, target
	 * asleep: sent before that RCU wait, which ended its NAPI poll and
	 * so flushed it into the ring, and delivered by a kthread asleep
	 * since */
	if ((f->flags & RFS_DEV_FLOW_BARE) && in->settled && in->idle)
		return RFS_HOLD_NONE;
	/* Not drained.  Dequeued (a mark at or after it) yet unproven can
	 * only mean a running kthread: asleep would have proven it. */
	if (in->track.last &&
	    rfs_seq_after_eq(rfs_mark_seq(in->track.last), f->last))
		return RFS_HOLD_NO_PROOF;
	return RFS_HOLD_QUEUED;
}

static const char *const rfs_hold_why_text[][2] = {
	[RFS_HOLD_NONE] = { "none", "drained" },
	[RFS_HOLD_LOCAL] = { "local",
		"its last frame was passed up on its RX CPU too recently (the local path's drain time has not passed)" },
	[RFS_HOLD_QUEUED] = { "queued",
		"its last frame is not dequeued yet (ring busy: still in the target's cpumap ring or the RX CPU's bulk queue, or lost on a full ring until a later frame passes it)" },
	[RFS_HOLD_NO_PROOF] = { "no_proof",
		"its last frame is dequeued but not yet proven delivered (no proof yet: GRO may hold it, and the target's cpumap kthread is running)" },
};

const char *rfs_hold_why_name(enum rfs_hold_why why)
{
	return why <= RFS_HOLD_NO_PROOF ? rfs_hold_why_text[why][0] : "?";
}

const char *rfs_hold_why_words(enum rfs_hold_why why)
{
	return why <= RFS_HOLD_NO_PROOF ? rfs_hold_why_text[why][1] : "?";
}

void rfs_hold_add(struct rfs_hold_cpu *c, const struct rfs_held_flow *h)
{
	c->flows++;
	if (c->shown < RFS_HOLD_SHOW)
		c->first[c->shown++] = *h;
}

char *rfs_hold_flow_words(const struct rfs_held_flow *h, char *buf,
			  size_t len)
{
	const struct rfs_dev_flow *f = &h->f;
	int n;

	n = snprintf(buf, len, "dev slot %u%s (rx queue %u, hash & 0x%08x = 0x%08x), ",
		     h->index,
		     h->prev_table ? " of the table before the last resize" : "",
		     h->rxq, h->flow_mask << 8, h->slot << 8);
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (f->flags & RFS_DEV_FLOW_LOCAL)
		snprintf(buf + n, len - n, "local path on CPU %u, jiffy %u: %s",
			 f->cpu, f->last, rfs_hold_why_words(h->why));
	else
		snprintf(buf + n, len - n, "RX CPU %u -> CPU %u, seq %u: %s",
			 f->rx_cpu, f->cpu, f->last,
			 rfs_hold_why_words(h->why));
	return buf;
}

bool rfs_hold_warn_due(__u64 waited_ms, __u64 bound_ms, __u64 *next_ms)
{
	if (!bound_ms)
		return false;
	if (!*next_ms)
		*next_ms = bound_ms;
	if (waited_ms < *next_ms)
		return false;
	while (*next_ms <= waited_ms)
		*next_ms *= 2;
	return true;
}
