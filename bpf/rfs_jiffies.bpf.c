// SPDX-License-Identifier: GPL-2.0
/*
 * The clock the datapath stamps its entries with (bpf_jiffies64()), for
 * rfsd to age them by: it test-runs this program (BPF_PROG_TEST_RUN),
 * which writes jiffies into its context.  Besides this, the kernel shows
 * jiffies only in /proc/timer_list, which only root may read, and rfsd
 * runs as a user of its own.  Never on a packet's path: only rfsd runs
 * it, once per table scan.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("syscall")
int rfs_jiffies(__u64 *now)
{
	*now = bpf_jiffies64();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
