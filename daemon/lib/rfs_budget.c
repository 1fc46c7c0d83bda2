// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdint.h>

#include "rfs_dp.h"
#include "rfs_order.h"

__u64 rfs_table_bytes(__u32 flow_cnt, __u32 rx_queues)
{
	/* as rfs_devtab_create() sizes it: the header entry, then the
	 * flows; in 64 bits, the product overflows 32 */
	return (1 + (__u64)flow_cnt * rx_queues) * sizeof(struct rfs_dev_flow);
}

void rfs_budget_fmt(__u64 bytes, char *buf, size_t len)
{
	if (bytes >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1 << 20));
	else if (bytes >= (1ull << 10))
		snprintf(buf, len, "%" PRIu64 " KiB", (uint64_t)(bytes >> 10));
	else
		snprintf(buf, len, "%" PRIu64 " bytes", (uint64_t)bytes);
}

int rfs_budget_check(const struct rfs_budget *b, const char *what,
		     __u32 flow_cnt, __u32 rx_queues, __u64 others,
		     char *err, size_t len)
{
	__u64 want = rfs_table_bytes(flow_cnt, rx_queues);
	bool one = b && b->iface && want > b->iface;
	char w[32], lim[32], oth[32], beside[80] = "";

	if (!one && !(b && b->total && others + want > b->total))
		return 0;
	rfs_budget_fmt(want, w, sizeof(w));
	rfs_budget_fmt(one ? b->iface : b->total, lim, sizeof(lim));
	if (!one) {
		rfs_budget_fmt(others, oth, sizeof(oth));
		snprintf(beside, sizeof(beside),
			 " beside the %s of the other interfaces", oth);
	}
	snprintf(err, len,
		 "%s: its flow table would take %s (flow_cnt %u x %u rx queues)%s, over the budget of %s %s (table_budget_%s in rfsd.conf)",
		 what, w, flow_cnt, rx_queues, beside, lim,
		 one ? "per interface" : "in total", one ? "iface" : "total");
	return -ENOSPC;
}

void rfs_budget_default(__u64 memtotal, struct rfs_budget *b)
{
	b->iface = memtotal ? memtotal >> RFS_BUDGET_IFACE_SHIFT :
			      RFS_BUDGET_IFACE_FALLBACK;
	b->total = memtotal ? memtotal >> RFS_BUDGET_TOTAL_SHIFT :
			      RFS_BUDGET_TOTAL_FALLBACK;
}

/* Read line by line, so that a long file is read only up to key. */
int rfs_file_u64(const char *path, const char *key, __u64 *out)
{
	FILE *f = fopen(path, "re");
	int e = -ENOENT;
	char line[256];

	if (!f)
		return -errno;
	while (e == -ENOENT && fgets(line, sizeof(line), f))
		e = rfs_text_u64(line, strlen(line), key, out);
	fclose(f);
	return e;
}

int rfs_meminfo_total(const char *path, __u64 *bytes)
{
	__u64 kb;
	int e = rfs_file_u64(path, "MemTotal:", &kb);

	if (!e && kb > UINT64_MAX >> 10)
		e = -ERANGE;
	if (!e)
		*bytes = kb << 10;
	return e;
}
