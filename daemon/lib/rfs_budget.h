/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Budgets for the interfaces' flow tables (rfs_dev_flows): how many bytes
 * one interface's table may take, and all of them together.  A table is
 * flow_cnt entries per RX queue of 8 bytes each, so the largest flow_cnt
 * on a NIC with many queues is gigabytes of kernel memory that the
 * control socket could ask for in one request; a budget turns that into
 * a refusal that says which limit and why.
 *
 * The defaults follow the host's RAM (MemTotal): RFS_BUDGET_IFACE_SHIFT
 * and RFS_BUDGET_TOTAL_SHIFT of it, generous next to the default table
 * (flow_cnt 4096 is 32 KiB a queue) and small enough that a burst of
 * attaches can't push the host into reclaim.  During a resize the old
 * table lives on until its flows are drained: one interface may briefly
 * hold two; the systemd unit's MemoryMax= leaves room for that.
 *
 * Pure but for reading /proc/meminfo: tests/unit/test_budget.c.
 */
#ifndef RFS_BUDGET_H
#define RFS_BUDGET_H

#include <stddef.h>
#include <linux/types.h>

#define RFS_BUDGET_IFACE_SHIFT	6	/* MemTotal / 64 per interface */
#define RFS_BUDGET_TOTAL_SHIFT	4	/* MemTotal / 16 in total */
/* when MemTotal can't be read */
#define RFS_BUDGET_IFACE_FALLBACK	(64ull << 20)
#define RFS_BUDGET_TOTAL_FALLBACK	(256ull << 20)

struct rfs_budget {
	__u64 iface;	/* bytes one interface's flow table may take */
	__u64 total;	/* ... every interface's together */
};

/* The bytes of a flow table of flow_cnt entries per RX queue. */
__u64 rfs_table_bytes(__u32 flow_cnt, __u32 rx_queues);

/*
 * May a table of flow_cnt x rx_queues take its place beside others bytes
 * of the other interfaces' tables?  0, or -ENOSPC with "<what>: its flow
 * table would take 64.0 MiB (flow_cnt 1048576 x 8 rx queues), over the
 * budget of 16.0 MiB per interface (table_budget_iface in rfsd.conf)"
 * in err.  what: "can't attach 'eth1'".
 */
int rfs_budget_check(const struct rfs_budget *b, const char *what,
		     __u32 flow_cnt, __u32 rx_queues, __u64 others,
		     char *err, size_t len);

/* The defaults for a host of memtotal bytes (0: unknown, the fallbacks). */
void rfs_budget_default(__u64 memtotal, struct rfs_budget *b);

/* MemTotal of a /proc/meminfo at path, in bytes: 0 or -errno. */
int rfs_meminfo_total(const char *path, __u64 *bytes);

/* "64.0 MiB", "512 KiB", "100 bytes" */
void rfs_budget_fmt(__u64 bytes, char *buf, size_t len);

#endif /* RFS_BUDGET_H */
