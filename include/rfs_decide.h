/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steering decision: which CPU a flow's next frame goes to.  One pure
 * function, rfs_pick_cpu(), used by the XDP program and by tests/unit.  The
 * caller does every map lookup first and passes the state in; nothing in
 * here touches a map or calls a helper, so the rule can be tested natively,
 * branch by branch.
 */
#ifndef RFS_DECIDE_H
#define RFS_DECIDE_H

#include "rfs_common.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Hide a value's known range from the optimiser (empty asm, no code). */
#define rfs_barrier_var(v) __asm__ __volatile__("" : "+r"(v))

/* Sock flow entry encoding: see rfs_sock_entry_t in rfs_common.h. */
static __always_inline rfs_sock_entry_t rfs_sock_entry_make(__u32 hash,
							    __u32 cpu,
							    __u32 cpu_mask)
{
	return (hash & ~cpu_mask) | ((cpu + 1) & cpu_mask);
}

/* The desired CPU an entry records for this hash, or RFS_NO_CPU when the
 * slot is empty or belongs to another flow (tag mismatch). */
static __always_inline __u32 rfs_sock_entry_cpu(rfs_sock_entry_t entry,
						__u32 hash, __u32 cpu_mask)
{
	__u32 cpu1 = entry & cpu_mask;

	if (!cpu1 || ((entry ^ hash) & ~cpu_mask))
		return RFS_NO_CPU;
	return cpu1 - 1;
}

static __always_inline int rfs_cpu_in(const __u64 *set, __u32 cpu)
{
	if (cpu >= RFS_MAX_CPUS)
		return 0;
	/* The mask is a no-op after the check, but the compiler may index
	 * with an unchecked copy of cpu; the barrier keeps the mask so the
	 * verifier sees the bound.  Costs one AND. */
	rfs_barrier_var(cpu);
	return (set[(cpu / 64) & (RFS_CPU_WORDS - 1)] >> (cpu % 64)) & 1;
}

/* Spread a flow over the allowed CPUs by hash, like RPS: the high bits of
 * hash * n pick a slot without a division. */
static __always_inline __u32 rfs_spread_cpu(const struct rfs_if_config *cfg,
					    __u32 hash)
{
	__u32 n = cfg->n_allowed;
	__u32 idx;

	if (!n || n > RFS_MAX_CPUS)
		return RFS_NO_CPU;
	idx = (__u32)(((__u64)hash * n) >> 32);
	rfs_barrier_var(idx);
	return cfg->allowed_list[idx & (RFS_MAX_CPUS - 1)];
}

/* (s32)(head - tail) >= 0: wrap-safe "head has reached tail" */
static __always_inline int rfs_queue_passed(__u32 head, __u32 last_tail)
{
	return (__s32)(head - last_tail) >= 0;
}

enum rfs_verdict {
	RFS_V_NONE,	/* no CPU allowed: pass the frame up here */
	RFS_V_NEW,	/* flow had no current CPU */
	RFS_V_KEEP,	/* stays where it is */
	RFS_V_SWITCH,	/* moves: its old queue has drained */
	RFS_V_FORCED,	/* moves: its current CPU is gone */
	RFS_V_HELD,	/* wants to move, waits for its old queue */
};

struct rfs_flow_state {
	__u32 hash;
	__u32 desired_cpu;	/* from the sock flow entry, or RFS_NO_CPU */
	struct rfs_dev_flow cur;
	/* done of cur.cpu's queue; read only if cur is valid */
	__u32 cur_done;
	/* frames this RX CPU sent to cur.cpu still in its bulk queue */
	__u32 cur_unflushed;
};

struct rfs_choice {
	__u32 cpu;
	__u8 verdict;		/* enum rfs_verdict */
	__u8 spread;		/* target came from the hash, not a socket */
};

/*
 * Pick the CPU for a flow's next frame.  The target is the desired CPU
 * when it is allowed, else a CPU picked by hash.  Then, in order:
 *  - no CPU allowed at all: NONE, the caller passes the frame up;
 *  - the flow has no current CPU: NEW, go to the target;
 *  - the current CPU is not usable (offline, gone from the cpumap): FORCED,
 *    go to the target; its queue will never be waited on again;
 *  - the current CPU is the target, or (no desired CPU and the current
 *    one is still allowed): KEEP; a flow is not moved for a mere hash hint;
 *  - otherwise the flow should move (new desired CPU, or current CPU being
 *    removed from the set): it moves only once the current CPU's done
 *    counter has passed the flow's last tail, i.e. every frame it sent
 *    there has been delivered to the stack, and none from this RX CPU is
 *    still waiting in the bulk queue (SWITCH); until then it stays (HELD),
 *    so a flow is never reordered.  Ring drops are taken off last_tail,
 *    so a dropped frame is never waited for.
 */
static __always_inline struct rfs_choice
rfs_pick_cpu(const struct rfs_flow_state *st, const struct rfs_if_config *cfg)
{
	struct rfs_choice c = { .cpu = RFS_NO_CPU, .verdict = RFS_V_NONE };
	__u32 cur = st->cur.cpu;
	__u32 target;

	if (rfs_cpu_in(cfg->allowed, st->desired_cpu)) {
		target = st->desired_cpu;
	} else {
		target = rfs_spread_cpu(cfg, st->hash);
		c.spread = 1;
	}
	if (!(st->cur.flags & RFS_DEV_FLOW_VALID)) {
		if (target == RFS_NO_CPU)
			return c;
		c.cpu = target;
		c.verdict = RFS_V_NEW;
		return c;
	}
	if (!rfs_cpu_in(cfg->usable, cur)) {
		if (target == RFS_NO_CPU)
			return c;
		c.cpu = target;
		c.verdict = RFS_V_FORCED;
		return c;
	}
	c.cpu = cur;
	if (cur == target ||
	    (c.spread && rfs_cpu_in(cfg->allowed, cur))) {
		c.verdict = RFS_V_KEEP;
		return c;
	}
	if (target != RFS_NO_CPU && !st->cur_unflushed &&
	    rfs_queue_passed(st->cur_done, st->cur.last_tail)) {
		c.cpu = target;
		c.verdict = RFS_V_SWITCH;
		return c;
	}
	/* Leaving CPU with nowhere to go also stays: it is still usable. */
	c.verdict = RFS_V_HELD;
	return c;
}

#endif /* RFS_DECIDE_H */
