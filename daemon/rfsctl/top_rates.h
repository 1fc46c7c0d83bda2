/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsctl top's arithmetic: two snapshots of rfsd's counters (taken from
 * successive stats replies) in, rates per second and each cpumap
 * kthread's wait per run out.  Nothing here talks to rfsd or draws:
 * tests/unit/test_top_rates.c covers it alone.
 */
#ifndef RFS_TOP_RATES_H
#define RFS_TOP_RATES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The counters top turns into rates, by their key in the stats reply. */
enum rfs_top_ctr {
	RFS_TOP_SEEN,
	RFS_TOP_STEERED,
	RFS_TOP_TO_DESIRED,
	RFS_TOP_HELD,
	RFS_TOP_SWITCHES,
	RFS_TOP_DEQUEUED,
	RFS_TOP_DROPS,		/* enqueue_drops: a target's ring was full */
	RFS_TOP_RECV_LOCAL,
	RFS_TOP_RECV_REMOTE,
	/* the kernel's counts for the CPU's cpumap kthread (schedstat:
	 * run_delay, pcount), not the datapath's: CPU rows and the total
	 * only, and only when rfsd could read them (has_kthread) */
	RFS_TOP_KTHREAD_WAIT_NS,
	RFS_TOP_KTHREAD_RUNS,
	RFS_TOP_NR_CTRS
};

/* A kthread is remade (CPU online, cpumap entry replaced) while rfsd and
 * its maps stay: its counters going back is no reset of the others. */
static inline bool rfs_top_ctr_is_kthread(enum rfs_top_ctr k)
{
	return k == RFS_TOP_KTHREAD_WAIT_NS || k == RFS_TOP_KTHREAD_RUNS;
}

/* "seen", "steered", ..., "enqueue_drops", ...: index by enum rfs_top_ctr */
extern const char *const rfs_top_ctr_keys[RFS_TOP_NR_CTRS];

enum rfs_top_kind {
	RFS_TOP_CPU,		/* name: the CPU number */
	RFS_TOP_TOTAL,		/* name: "all" */
	RFS_TOP_IFACE,		/* name: the interface */
};

#define RFS_TOP_NAME_LEN	16	/* IF_NAMESIZE */
#define RFS_TOP_NO_BACKLOG	(-1)

/* One row of a snapshot: a CPU, the total or an interface. */
struct rfs_top_row {
	enum rfs_top_kind kind;
	char name[RFS_TOP_NAME_LEN];
	__u64 ctr[RFS_TOP_NR_CTRS];
	/* a gauge, not a counter: frames in the CPU's cpumap ring now;
	 * RFS_TOP_NO_BACKLOG when rfsd does not say */
	long long backlog;
	/* rfsd gave both kthread counters: without them ctr[] holds 0 for
	 * them, which is no count (no kthread yet, or unreadable) */
	bool has_kthread;
};

struct rfs_top_snap {
	double t;		/* when it was taken, seconds (monotonic) */
	size_t n;
	struct rfs_top_row *rows;
};

struct rfs_top_rate {
	enum rfs_top_kind kind;
	char name[RFS_TOP_NAME_LEN];
	/* false: no earlier sample of this row, or no time passed; the
	 * rates below are then 0 and the percentages NaN */
	bool valid;
	/* a counter went backwards since the earlier sample: rfsd started
	 * afresh (new maps) or the interface was attached again; the rates
	 * count from zero, which happened within the interval; the kthread
	 * counters have no part in it (kthread_valid) */
	bool reset;
	/* valid, both samples had the kthread counters and neither went
	 * back: only then do their per_s and kwait_us mean something */
	bool kthread_valid;
	double per_s[RFS_TOP_NR_CTRS];
	double to_desired_pct;	/* of steered; NaN when nothing was */
	double locality_pct;	/* recv_local of all recvs; NaN when none */
	/* microseconds the kthread waited for its CPU per run; NaN when
	 * not kthread_valid or it did not run */
	double kwait_us;
	long long backlog;
};

/*
 * What a counter grew by from prev to cur.  Counters only grow and wrap
 * at 2^64, so a forward distance below 2^63 is growth (a wrap included);
 * anything else means the counter started again from zero: *reset is set
 * and cur is what it grew by since.
 */
__u64 rfs_top_delta(__u64 prev, __u64 cur, bool *reset);

/* 100 * part / whole, or NaN when whole is 0. */
double rfs_top_pct(double part, double whole);

/* wait_ns / runs in microseconds, or NaN when runs is 0. */
double rfs_top_kwait_us(__u64 wait_ns, __u64 runs);

/*
 * kwait_us as a cell of at most RFS_TOP_KWAIT_W characters: "-" for NaN,
 * one decimal below 1000, none up to 999999, ">=1s" above.  Text, but
 * here rather than in top_fmt.c so that the unit test covers its bounds.
 */
#define RFS_TOP_KWAIT_W	6
void rfs_top_kwait_text(char *buf, size_t len, double us);

/* The rate of cur against prev (NULL: none), secs apart. */
void rfs_top_rate_row(const struct rfs_top_row *prev,
		      const struct rfs_top_row *cur, double secs,
		      struct rfs_top_rate *out);

/* The row of snap of that kind and name, or NULL. */
const struct rfs_top_row *rfs_top_find(const struct rfs_top_snap *snap,
				       enum rfs_top_kind kind,
				       const char *name);

/* out[i]: the rate of cur->rows[i], against its row in prev (may be
 * NULL: the first sample). */
void rfs_top_rates(const struct rfs_top_snap *prev,
		   const struct rfs_top_snap *cur, struct rfs_top_rate *out);

#endif /* RFS_TOP_RATES_H */
