// SPDX-License-Identifier: GPL-2.0
/* rfsctl top's arithmetic, apart from cmd_top.c to be unit-tested alone */
#include "rfsctl.h"

/*
 * What a counter grew by.  Counters only grow and wrap at 2^64, so a
 * forward distance up to 2^63 is growth, a wrap included.  Anything else
 * means the map was made anew (rfsd restarted without adopting it, the
 * interface re-attached): all it holds was counted since, and *reset.
 */
static __u64 rfs_top_delta(__u64 prev, __u64 cur, bool *reset)
{
	__u64 d = cur - prev;

	if (d <= (__u64)1 << 63)
		return d;
	*reset = true;
	return cur;
}

static double rfs_top_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

double rfs_top_kwait_us(__u64 wait_ns, __u64 runs)
{
	return runs ? wait_ns / 1e3 / runs : NAN;
}

void rfs_top_kwait_text(char *buf, size_t len, double us)
{
	/* the bounds are where the rounded text would grow: 999.96 is
	 * "1000.0" with a decimal, 999999.6 is "1000000" without */
	if (isnan(us))
		snprintf(buf, len, "-");
	else if (us < 999.95)
		snprintf(buf, len, "%.1f", us);
	else if (us < 999999.5)
		snprintf(buf, len, "%.0f", us);
	else
		snprintf(buf, len, ">=1s");
}

static void rfs_top_rate_row(const struct rfs_top_row *prev,
			     struct rfs_top_row *cur, double secs)
{
	__u64 d[RFS_TOP_NR_CTRS];
	bool back = false;
	int k;

	cur->valid = cur->reset = cur->kthread_valid = false;
	memset(cur->per_s, 0, sizeof(cur->per_s));
	cur->to_desired_pct = cur->locality_pct = cur->kwait_us = NAN;
	/* secs > 0 also refuses NaN: a clock that did not move gives no
	 * rate rather than a division by zero */
	if (!prev || !(secs > 0))
		return;
	cur->valid = true;
	for (k = 0; k < RFS_TOP_NR_CTRS; k++) {
		d[k] = rfs_top_delta(prev->ctr[k], cur->ctr[k],
				     rfs_top_ctr_is_kthread(k) ? &back :
				     &cur->reset);
		cur->per_s[k] = d[k] / secs;
	}
	cur->to_desired_pct = rfs_top_pct(d[RFS_TOP_TO_DESIRED],
					  d[RFS_TOP_STEERED]);
	cur->locality_pct = rfs_top_pct(d[RFS_TOP_RECV_LOCAL],
					d[RFS_TOP_RECV_LOCAL] +
					(double)d[RFS_TOP_RECV_REMOTE]);
	/* A kthread remade (CPU online, cpumap entry replaced) while rfsd
	 * and its maps stay starts its counters again, which is no reset of
	 * the others; it took with it what the old one waited since the
	 * earlier sample: a figure would cover part of the interval only. */
	cur->kthread_valid = prev->has_kthread && cur->has_kthread && !back;
	if (cur->kthread_valid)
		cur->kwait_us = rfs_top_kwait_us(d[RFS_TOP_KTHREAD_WAIT_NS],
						 d[RFS_TOP_KTHREAD_RUNS]);
}

static const struct rfs_top_row *
rfs_top_find(const struct rfs_top_snap *snap, enum rfs_top_kind kind,
	     const char *name)
{
	size_t i;

	for (i = 0; snap && i < snap->n; i++)
		if (snap->rows[i].kind == kind &&
		    !strcmp(snap->rows[i].name, name))
			return &snap->rows[i];
	return NULL;
}

void rfs_top_rates(const struct rfs_top_snap *prev, struct rfs_top_snap *cur)
{
	double secs = prev ? cur->t - prev->t : 0;
	struct rfs_top_row *r;
	size_t i;

	for (i = 0; i < cur->n; i++) {
		r = &cur->rows[i];
		rfs_top_rate_row(rfs_top_find(prev, r->kind, r->name), r, secs);
	}
}
