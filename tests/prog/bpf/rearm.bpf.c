// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_rearm: run another XDP program repeatedly on a fresh-looking frame.
 *
 * A plain BPF_PROG_TEST_RUN with repeat > 1 runs every repeat on the
 * same buffer, as the previous repeat left it.  rfs_xdp puts 8 bytes of
 * metadata in front of each frame it redirects (struct rfs_frame_meta);
 * on a reused buffer that piles up until the headroom is gone (27 repeats
 * with the test run's 256 bytes), and from then on rfs_xdp redirects the
 * frame without its metadata (no_meta): a cost test would time the
 * wrong path.  A driver never hands it a frame with metadata on it.
 *
 * This program drops our metadata (a no-op when there is none) and
 * tail-calls the program in rfs_rearm_next[0]; with rfs_rearm_nop there,
 * it times itself.  Used by tests/prog/test_xdp (test_cost) and
 * bench/cost (plain mode), for rfs_xdp and the bare redirect alike.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rfs_rearm_next SEC(".maps");

SEC("xdp")
int rfs_rearm(struct xdp_md *ctx)
{
	/* fails (harmlessly) when there is no metadata to drop */
	bpf_xdp_adjust_meta(ctx, (int)sizeof(struct rfs_frame_meta));
	bpf_tail_call(ctx, &rfs_rearm_next, 0);
	return XDP_ABORTED;
}

/* The floor: what rfs_rearm itself costs. */
SEC("xdp")
int rfs_rearm_nop(struct xdp_md *ctx)
{
	return XDP_REDIRECT;
}

char LICENSE[] SEC("license") = "GPL";
