/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps shared by every xdp-rfs BPF object.  Declared __weak so the files
 * linked into rfs_core.bpf.o share one definition; the per-interface XDP
 * objects get the same maps by pin path (rfsd sets it before load).
 */
#ifndef RFS_MAPS_BPF_H
#define RFS_MAPS_BPF_H

#include "rfs_common.h"
#include "rfs_decide.h"	/* rfs_sock_index */

/* Kernel constants vmlinux.h has no enum for (they are macros). */
#define RFS_AF_INET	2
#define RFS_AF_INET6	10
#define RFS_TCP_CLOSE	7
#define RFS_TASK_INTERRUPTIBLE	1

/* Inner template; rfsd creates the real table with BPF_F_INNER_MAP so it
 * can be swapped for one of another size while the programs run. */
struct rfs_sock_flows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);
	__uint(max_entries, RFS_SOCK_FLOW_DEFAULT);
	__type(key, __u32);
	__type(value, rfs_sock_entry_t);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct rfs_sock_flows);
} rfs_sock_outer SEC(".maps") __weak;

/* Mmapable: values start on a page boundary, so each 128-byte slot is
 * alone on its cache lines (see struct rfs_cpu_queue). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RFS_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct rfs_cpu_queue);
} rfs_cpu_queues SEC(".maps") __weak;

/* [rfs_rx_track_index(target, rx_cpu)]: a target's row, one track per
 * possible RX CPU, is written only by that target.  rfsd sizes it
 * (nr_cpus * nr_rx_cpus) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RFS_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct rfs_rx_track);
} rfs_rx_track SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, RFS_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} rfs_cpu_map SEC(".maps") __weak;

/* Mmapable for where its value starts: on a page, so the words every
 * frame reads are one cache line (rfs_common.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_globals);
} rfs_globals SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_global_stats);
} rfs_gstats SEC(".maps") __weak;

/* Early drop marks (rfs_full_mark), written by rfs_sock_full on a
 * target CPU, read by rfs_xdp on every RX CPU and by that target's
 * rfs_cpumap while the refusal is recent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RFS_FULL_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} rfs_sock_full SEC(".maps") __weak;

static __always_inline struct rfs_globals *rfs_get_globals(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rfs_globals, &zero);
}

static __always_inline struct rfs_global_stats *rfs_get_gstats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rfs_gstats, &zero);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_tx_seq);
} rfs_tx_seq SEC(".maps") __weak;

/* Written by another CPU: read once. */
#define RFS_READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define RFS_WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

/* Did the flow's socket refuse a datagram moments ago (rfs_full_drops)?
 * One load of a line written only on refusals.  now: jiffies. */
static __always_inline int rfs_flow_full(__u32 hash, __u32 now,
					 __u32 window)
{
	__u32 idx = rfs_full_index(hash);
	__u64 *slot, mark;

	slot = bpf_map_lookup_elem(&rfs_sock_full, &idx);
	if (!slot)
		return 0;
	mark = RFS_READ_ONCE(*slot);
	return rfs_full_drops(mark, hash, now, window);
}

/* The slot of the sock flow table this hash maps to, or NULL. */
static __always_inline rfs_sock_entry_t *
rfs_sock_slot(const struct rfs_globals *g, __u32 hash)
{
	__u32 zero = 0, idx;
	void *table;

	table = bpf_map_lookup_elem(&rfs_sock_outer, &zero);
	if (!table)
		return NULL;
	idx = rfs_sock_index(hash, g->sock_flow_mask);
	return bpf_map_lookup_elem(table, &idx);
}

#endif /* RFS_MAPS_BPF_H */
