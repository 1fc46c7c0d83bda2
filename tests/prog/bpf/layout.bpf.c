// SPDX-License-Identifier: GPL-2.0
/*
 * The layout probe for tests/prog/test_xdp.c (test_layout): where do the
 * values of rfs_cpu_queues and rfs_rx_track, and of rfs_globals and an
 * interface's rfs_if_cfg (the lines every frame reads), really start?
 * struct rfs_cpu_queue is padded to two cache lines on the promise that
 * each slot starts on one; that holds only if the array's values do,
 * which a plain array map does not give (its values follow struct
 * bpf_array).
 *
 * The test reuses the datapath's own map fds for these maps
 * (bpf_map__reuse_fd) and runs this once (BPF_PROG_TEST_RUN), then runs
 * it again on plain arrays of the same value type, the control.  A
 * lookup into an array returns the address of the value inside the map,
 * so the numbers are the kernel's layout, not a model of it.  Turning a
 * pointer into a number needs root (allow_ptr_leaks): the address is
 * stored into the output value, then read back as a plain number.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "rfs_common.h"
#include "rfs_order.h"
/* The datapath's own definitions: the test swaps in real fds for four of
 * them (the rest are created for this probe and not read). */
#include "rfs_maps.bpf.h"
#include "rfs_if_cfg.bpf.h"
#include "rfs_layout.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_layout_out);
} rfs_lay_out SEC(".maps");

/* A load the compiler must emit: the stored pointer comes back as a
 * number, which the verifier lets us do arithmetic on. */
#define RFS_LAY_RELOAD(x)	(*(volatile __u64 *)&(x))

SEC("syscall")
int rfs_layout(struct rfs_layout_args *args)
{
	__u32 zero = 0, one = 1, t0, t1;
	struct rfs_layout_out *o;
	void *q0, *q1, *r0, *r1, *g, *c0, *c1;

	o = bpf_map_lookup_elem(&rfs_lay_out, &zero);
	if (!o)
		return 1;
	t0 = rfs_rx_track_index(args->target, 0, args->nr_rx_cpus);
	t1 = t0 + 1;
	q0 = bpf_map_lookup_elem(&rfs_cpu_queues, &zero);
	q1 = bpf_map_lookup_elem(&rfs_cpu_queues, &one);
	r0 = bpf_map_lookup_elem(&rfs_rx_track, &t0);
	r1 = bpf_map_lookup_elem(&rfs_rx_track, &t1);
	g = bpf_map_lookup_elem(&rfs_globals, &zero);
	c0 = bpf_map_lookup_elem(&rfs_if_cfg, &zero);
	c1 = bpf_map_lookup_elem(&rfs_if_cfg, &one);
	if (!q0 || !q1 || !r0 || !r1 || !g || !c0 || !c1)
		return 2;
	o->g_addr = (__u64)g;
	o->c_addr[0] = (__u64)c0;
	o->c_addr[1] = (__u64)c1;
	o->g_mod64 = RFS_LAY_RELOAD(o->g_addr) & 63;
	o->c_mod64[0] = RFS_LAY_RELOAD(o->c_addr[0]) & 63;
	o->c_mod64[1] = RFS_LAY_RELOAD(o->c_addr[1]) & 63;
	o->c_stride = RFS_LAY_RELOAD(o->c_addr[1]) - RFS_LAY_RELOAD(o->c_addr[0]);
	o->q_addr[0] = (__u64)q0;
	o->q_addr[1] = (__u64)q1;
	o->t_addr[0] = (__u64)r0;
	o->t_addr[1] = (__u64)r1;
	o->q_mod64[0] = RFS_LAY_RELOAD(o->q_addr[0]) & 63;
	o->q_mod64[1] = RFS_LAY_RELOAD(o->q_addr[1]) & 63;
	o->q_stride = RFS_LAY_RELOAD(o->q_addr[1]) - RFS_LAY_RELOAD(o->q_addr[0]);
	o->t_mod64[0] = RFS_LAY_RELOAD(o->t_addr[0]) & 63;
	o->t_mod64[1] = RFS_LAY_RELOAD(o->t_addr[1]) & 63;
	o->t_mod4096 = RFS_LAY_RELOAD(o->t_addr[0]) & 4095;
	o->t_stride = RFS_LAY_RELOAD(o->t_addr[1]) - RFS_LAY_RELOAD(o->t_addr[0]);
	o->done = 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
