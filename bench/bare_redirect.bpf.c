// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for bench/cost: an XDP program that does nothing but redirect
 * every frame into a cpumap, to one CPU (0 unless the loader says).  rfs_xdp does the same redirect
 * after parsing, hashing, two table lookups and rfs_pick_cpu(), so the
 * ratio of the two costs is what steering adds on top of the cheapest
 * possible cpumap redirect (the project's budget: at most 1.25x).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* The target CPU.  In plain test-run mode nothing is enqueued and the
 * target does not matter; with live frames it does (a target on the
 * runner's own CPU cannot drain), so the loader may set it before load to
 * the CPU rfs_xdp steers to. */
const volatile __u32 rfs_bare_cpu = 0;

/* Sized by the loader (bpf_map__set_max_entries) to rfs_bare_cpu + 1; it
 * creates that one entry, and with it the target's kthread. */
struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} rfs_bare_cpumap SEC(".maps");

SEC("xdp")
int rfs_bare_redirect(struct xdp_md *ctx)
{
	/* flags 0: XDP_ABORTED if the slot is empty, so a loader that forgot
	 * the entry is caught by the verdict check instead of measured */
	return bpf_redirect_map(&rfs_bare_cpumap, rfs_bare_cpu, 0);
}

char LICENSE[] SEC("license") = "GPL";
