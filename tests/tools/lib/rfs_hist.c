// SPDX-License-Identifier: GPL-2.0
/*
 * The log-linear histogram of rfs_hist.h.  Bucket layout, with S =
 * RFS_HIST_SUB: indexes 0 .. 2S-1 are the values themselves; above,
 * a value whose top bit is bit b (b >= log2(2S)) is shifted right by
 * s = b - log2(S) so that its top log2(S)+1 bits, in S .. 2S-1, remain,
 * and lands at s * S + (v >> s): each octave takes the next S indexes.
 */
#include <string.h>

#include "rfs_hist.h"

void rfs_hist_init(struct rfs_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int rfs_hist_index(uint64_t ns)
{
	unsigned int msb, shift;
	uint64_t idx;

	if (ns < 2 * RFS_HIST_SUB)
		return ns;
	if (ns >= RFS_HIST_MAX_NS)
		return RFS_HIST_BUCKETS - 1;
	msb = 63 - __builtin_clzll(ns);
	shift = msb - RFS_HIST_SUB_BITS;
	idx = (uint64_t)shift * RFS_HIST_SUB + (ns >> shift);
	return idx < RFS_HIST_BUCKETS ? idx : RFS_HIST_BUCKETS - 1;
}

uint64_t rfs_hist_lowest(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * RFS_HIST_SUB)
		return idx;
	shift = idx / RFS_HIST_SUB - 1;
	return (uint64_t)(idx - shift * RFS_HIST_SUB) << shift;
}

uint64_t rfs_hist_width(unsigned int idx)
{
	if (idx < 2 * RFS_HIST_SUB)
		return 1;
	return 1ULL << (idx / RFS_HIST_SUB - 1);
}

void rfs_hist_record(struct rfs_hist *h, uint64_t ns)
{
	h->count[rfs_hist_index(ns)]++;
	h->total++;
	if (ns > h->max)
		h->max = ns;
	if (ns < h->min)
		h->min = ns;
}

void rfs_hist_merge(struct rfs_hist *dst, const struct rfs_hist *src)
{
	unsigned int i;

	for (i = 0; i < RFS_HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->total += src->total;
	if (src->max > dst->max)
		dst->max = src->max;
	if (src->min < dst->min)
		dst->min = src->min;
}

uint64_t rfs_hist_percentile(const struct rfs_hist *h, double p)
{
	uint64_t want, seen = 0, v;
	unsigned int i;

	if (!h->total)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	want = (uint64_t)(p / 100.0 * h->total + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < RFS_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want)
			break;
	}
	if (i == RFS_HIST_BUCKETS)
		return h->max;
	v = rfs_hist_lowest(i) + rfs_hist_width(i) / 2;
	/* never outside what was recorded */
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}
