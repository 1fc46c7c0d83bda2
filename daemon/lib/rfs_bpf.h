/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the datapath's modules do with libbpf that is not about any one of
 * them: error strings, BTF-typed tables, whole-array and per-CPU reads,
 * the checks that keep another build's pins out, pins by name, the RCU
 * wait before an old table is let go; and libbpf's and libxdp's own
 * messages routed into log.c (rfs_log_hook_libs(), rfs_dp.h).  A leaf: it
 * knows no struct of the datapath.
 */
#ifndef RFS_BPF_H
#define RFS_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* errors: "<fmt>" into err (RFS_ERR_LEN), returns -e */
int rfs_errf(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* BTF-typed array for a swapped-in table, BTF taken from a map that has
 * it; value type looked up by name. Returns fd or -errno. */
int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries);
/* Read a whole array map (value_size each) into buf. */
int rfs_read_array(int fd, __u32 value_size, __u32 entries, void *buf);
int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf);

/* fd (a pinned map, or -1) has u32 keys and value_size values, else
 * -EPROTO: made by another build. */
int rfs_check_map(int fd, const char *name, __u32 value_size, char *err);
struct rfs_map_check {
	int fd;
	const char *name;
	__u32 value_size;
};
/* rfs_check_map() on each of n, up to the first that fails. */
int rfs_check_maps(const struct rfs_map_check *maps, size_t n, char *err);

/* The id of a prog or map fd, 0 if it can't be had. */
__u32 rfs_obj_id(int fd);
/* One per-CPU value into out[0..n), each size bytes (not the stride). */
int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n);
/* Per-CPU value stride as the kernel lays it out. */
static inline size_t rfs_percpu_stride(size_t size)
{
	return (size + 7) & ~(size_t)7;
}
/*
 * A per-CPU map's value for key, whole, as the kernel writes it: one
 * stride per *possible* CPU, which may be more than the CPUs xdp-rfs
 * steers to (RFS_MAX_CPUS): a buffer sized by the steering cap would be
 * overrun.  A new buffer (free() it) with *ncpu values, or NULL with
 * errno set.
 */
void *rfs_lookup_percpu(int fd, __u32 key, size_t size, int *ncpu);

/* The object pinned at <base>/<dir>/<name>: its fd, or -errno. */
int rfs_get_pinned(const char *base, const char *dir, const char *name);
/* Pin fd at <base>/<dir>/<name>, replacing what was there. */
int rfs_pin_at(const char *base, int fd, const char *dir, const char *name,
	       char *err);

/*
 * Every XDP and socket program that could still use a table it looked up
 * before a swap has finished: MEMBARRIER_CMD_GLOBAL waits for an RCU grace
 * period, and they run inside RCU read-side sections.
 */
void rfs_wait_rcu(void);

#endif /* RFS_BPF_H */
