/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log-linear latency histogram in the manner of HdrHistogram (Debian 12
 * packages no C HdrHistogram): values below 2 * RFS_HIST_SUB are counted
 * exactly, above that every power of two is cut into RFS_HIST_SUB equal
 * buckets, so a percentile is off by less than 1 / RFS_HIST_SUB of its
 * value (1.6 %) at any magnitude, in a fixed array and O(1) per record.
 * Values are in nanoseconds; anything above RFS_HIST_MAX_NS lands in the
 * last bucket (and is still counted in max).
 */
#ifndef RFS_HIST_H
#define RFS_HIST_H

#include <stdint.h>

#define RFS_HIST_SUB_BITS	6
#define RFS_HIST_SUB		(1u << RFS_HIST_SUB_BITS)
/* up to 2^40 ns (18 minutes): 35 octaves above the exact range */
#define RFS_HIST_OCTAVES	35
#define RFS_HIST_BUCKETS	((RFS_HIST_OCTAVES + 2) * RFS_HIST_SUB)
#define RFS_HIST_MAX_NS		(1ULL << 40)

struct rfs_hist {
	uint64_t count[RFS_HIST_BUCKETS];
	uint64_t total;
	uint64_t max;
	uint64_t min;
};

void rfs_hist_init(struct rfs_hist *h);
void rfs_hist_record(struct rfs_hist *h, uint64_t ns);
/* dst += src */
void rfs_hist_merge(struct rfs_hist *dst, const struct rfs_hist *src);
/* The value at percentile p (0..100): the middle of the bucket that holds
 * the ceil(p / 100 * total)-th smallest value; 0 when empty. */
uint64_t rfs_hist_percentile(const struct rfs_hist *h, double p);

/* exposed for the unit test: value <-> bucket */
unsigned int rfs_hist_index(uint64_t ns);
uint64_t rfs_hist_lowest(unsigned int idx);
uint64_t rfs_hist_width(unsigned int idx);

#endif /* RFS_HIST_H */
