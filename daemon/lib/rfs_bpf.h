/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the datapath's modules do with libbpf that is not about any one
 * of them.  A leaf: it knows no struct of the datapath.
 */
#ifndef RFS_BPF_H
#define RFS_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* "<fmt>" into err (RFS_ERR_LEN); returns -e */
int rfs_errf(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An array for a swapped-in table, typed by value_type of btf_src_fd's
 * BTF (bpftool shows its fields): fd or -errno. */
int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries);
int rfs_read_array(int fd, __u32 value_size, __u32 entries, void *buf);
int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf);

struct rfs_map_check {
	int fd;
	const char *name;
	__u32 value_size;
};
/* Each fd (a pinned map, or -1) has u32 keys and value_size values,
 * else -EPROTO: another build's pins would be read into wrong structs. */
int rfs_check_maps(const struct rfs_map_check *maps, size_t n, char *err);

/* The id of a prog or map fd, 0 if unknown. */
__u32 rfs_obj_id(int fd);
/* One per-CPU value into out[0..n), each size bytes (not the stride). */
int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n);
/* Per-CPU value stride as the kernel lays it out. */
static inline size_t rfs_percpu_stride(size_t size)
{
	return (size + 7) & ~(size_t)7;
}
/* A per-CPU map's value for key, one stride per *possible* CPU (more
 * than RFS_MAX_CPUS may be), in a new buffer, or NULL with errno. */
void *rfs_lookup_percpu(int fd, __u32 key, size_t size, int *ncpu);

/* The object pinned at <base>/<dir>/<name>, and pinning there (replaces). */
int rfs_get_pinned(const char *base, const char *dir, const char *name);
int rfs_pin_at(const char *base, int fd, const char *dir, const char *name,
	       char *err);

/* Return once every program that could still use a table it looked up
 * before a swap has finished: they run under RCU, and
 * MEMBARRIER_CMD_GLOBAL waits for a grace period. */
void rfs_wait_rcu(void);

#endif /* RFS_BPF_H */
