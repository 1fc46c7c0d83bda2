// SPDX-License-Identifier: GPL-2.0
/*
 * Another tool's XDP program: what an operator's `ip link set dev X xdp
 * obj ...` would put where rfs_xdp was (tests/integration/
 * test_lifecycle.sh, test_replaced_by_other_tool).  Passes everything.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int other_xdp(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
