/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by tests/prog/bpf/layout.bpf.c and tests/prog/test_xdp.c: what
 * the layout probe reports about where the kernel put map values.
 * __u64 fields only (no libc, no logic): it builds for BPF and host.
 */
#ifndef RFS_TEST_LAYOUT_H
#define RFS_TEST_LAYOUT_H

/* In: which target's rfs_rx_track row to look at (the syscall ctx). */
struct rfs_layout_args {
	__u32 target;
	__u32 nr_rx_cpus;	/* rfs_globals' */
};

/*
 * Out, one slot of rfs_lay_out.  q: rfs_cpu_queues[0] and [1].
 * t: rfs_rx_track[rfs_rx_track_index(target, 0)] and the element after
 * it (the first two RX CPUs of the target's row).  addr is the kernel address as
 * a number (root may turn a pointer into one); the rest is computed from
 * it in BPF, so the test reads the probe's own arithmetic.
 */
struct rfs_layout_out {
	__u64 q_addr[2];
	__u64 t_addr[2];
	__u64 q_mod64[2];
	__u64 q_stride;
	__u64 t_mod64[2];
	__u64 t_mod4096;	/* the row start within its page */
	__u64 t_stride;
	/* g: rfs_globals[0]; c: rfs_if_cfg[0] and [1] */
	__u64 g_addr;
	__u64 c_addr[2];
	__u64 g_mod64;
	__u64 c_mod64[2];
	__u64 c_stride;
	__u64 done;		/* 1 once written */
};

#endif /* RFS_TEST_LAYOUT_H */
