/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Budgets for the interfaces' flow tables: the largest flow_cnt on a NIC
 * with many queues is gigabytes of kernel memory that one control request
 * could ask for; a budget turns that into a refusal naming the limit.
 * The defaults are a share of MemTotal, generous next to the default
 * table and small enough that a burst of attaches can't push the host
 * into reclaim.  A resized table's old one lives until drained, so one
 * interface may briefly hold two: MemoryMax= in the unit leaves room.
 */
#ifndef RFS_BUDGET_H
#define RFS_BUDGET_H

#include <stddef.h>
#include <linux/types.h>

#define RFS_BUDGET_IFACE_SHIFT	6	/* MemTotal / 64 per interface */
#define RFS_BUDGET_TOTAL_SHIFT	4	/* MemTotal / 16 in total */
#define RFS_BUDGET_IFACE_FALLBACK	(64ull << 20)
#define RFS_BUDGET_TOTAL_FALLBACK	(256ull << 20)

struct rfs_budget {
	__u64 iface;	/* bytes one interface's flow table may take */
	__u64 total;	/* ... every interface's together */
};

/* The bytes of a table of flow_cnt entries per RX queue. */
__u64 rfs_table_bytes(__u32 flow_cnt, __u32 rx_queues);

/* May such a table join others bytes of the other interfaces'?  0, or
 * -ENOSPC with "<what>: its flow table would take 64.0 MiB (...), over
 * the budget of 16.0 MiB per interface (...)" in err. */
int rfs_budget_check(const struct rfs_budget *b, const char *what,
		     __u32 flow_cnt, __u32 rx_queues, __u64 others,
		     char *err, size_t len);

/* The defaults for memtotal bytes (0: unknown, the fallbacks). */
void rfs_budget_default(__u64 memtotal, struct rfs_budget *b);

/* MemTotal of a /proc/meminfo at path, in bytes: 0 or -errno. */
int rfs_meminfo_total(const char *path, __u64 *bytes);

/* "64.0 MiB", "512 KiB", "100 bytes" */
void rfs_budget_fmt(__u64 bytes, char *buf, size_t len);

#endif /* RFS_BUDGET_H */
