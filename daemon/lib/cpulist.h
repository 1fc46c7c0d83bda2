/* SPDX-License-Identifier: GPL-2.0 */
/* CPU sets as bitmaps of RFS_MAX_CPUS bits, and their "0-3,6" form. */
#ifndef RFS_CPULIST_H
#define RFS_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "rfs_common.h"

struct rfs_cpuset {
	__u64 bits[RFS_CPU_WORDS];
};

/* "0-3,6" -> set.  0, or -EINVAL for bad syntax, -ERANGE for a CPU >=
 * RFS_MAX_CPUS.  An empty string gives -EINVAL; one '\n' may end it. */
int rfs_cpulist_parse(const char *s, struct rfs_cpuset *set);
/* The same, leaving out CPUs >= RFS_MAX_CPUS instead of failing. */
int rfs_cpulist_parse_clamped(const char *s, struct rfs_cpuset *set);
/* set -> "0-3,6" (empty string for an empty set). */
void rfs_cpulist_format(const struct rfs_cpuset *set, char *buf, size_t len);

void rfs_cpuset_zero(struct rfs_cpuset *set);
void rfs_cpuset_add(struct rfs_cpuset *set, unsigned int cpu);
bool rfs_cpuset_has(const struct rfs_cpuset *set, unsigned int cpu);
int rfs_cpuset_count(const struct rfs_cpuset *set);
bool rfs_cpuset_equal(const struct rfs_cpuset *a, const struct rfs_cpuset *b);
void rfs_cpuset_and(struct rfs_cpuset *dst, const struct rfs_cpuset *a,
		    const struct rfs_cpuset *b);
/* CPUs online now (/sys/devices/system/cpu/online); 0 or -errno. */
int rfs_cpuset_online(struct rfs_cpuset *set);

#endif /* RFS_CPULIST_H */
