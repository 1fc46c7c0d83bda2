// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "rfs_bpf.h"
#include "rfs_dp.h"
#include "rfs_pin.h"

int rfs_errf(char *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, RFS_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	return e > 0 ? -e : e;
}

int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct btf *btf = NULL;
	int fd, key_id, val_id, btf_fd = -1;

	/* BTF, so bpftool map dump shows field names; best effort. */
	if (!bpf_obj_get_info_by_fd(btf_src_fd, &info, &len) && info.btf_id)
		btf = btf__load_from_kernel_by_id(info.btf_id);
	if (btf) {
		key_id = btf__find_by_name(btf, "__u32");
		val_id = btf__find_by_name_kind(btf, value_type,
						BTF_KIND_TYPEDEF);
		if (val_id <= 0)
			val_id = btf__find_by_name_kind(btf, value_type,
							BTF_KIND_STRUCT);
		btf_fd = bpf_btf_get_fd_by_id(info.btf_id);
		if (key_id > 0 && val_id > 0 && btf_fd >= 0) {
			opts.btf_fd = btf_fd;
			opts.btf_key_type_id = key_id;
			opts.btf_value_type_id = val_id;
		}
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32),
			    value_size, entries, &opts);
	if (fd < 0 && opts.btf_fd) {
		opts.btf_fd = opts.btf_key_type_id = opts.btf_value_type_id = 0;
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32),
				    value_size, entries, &opts);
	}
	if (fd < 0)
		fd = -errno;
	if (btf_fd >= 0)
		close(btf_fd);
	btf__free(btf);
	return fd;
}

/* Whole arrays move with the batch syscalls (a few calls for a table of
 * a million entries); kernels without them get the per-entry loop. */
int rfs_read_array(int fd, __u32 value_size, __u32 entries, void *buf)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 *keys, done = 0, next = 0, count, i;
	int e = 0;

	keys = calloc(entries ? entries : 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	while (done < entries) {
		count = entries - done;
		e = bpf_map_lookup_batch(fd, done ? &next : NULL, &next,
					 keys + done,
					 (char *)buf + (size_t)done * value_size,
					 &count, &opts);
		done += count;
		if (e)
			break;
	}
	free(keys);
	if (done >= entries || (e && errno == ENOENT && done == entries))
		return 0;
	for (i = 0; i < entries; i++)
		if (bpf_map_lookup_elem(fd, &i, (char *)buf + (size_t)i * value_size))
			return -errno;
	return 0;
}

int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 *keys, count = entries, i;
	int e;

	keys = calloc(entries ? entries : 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < entries; i++)
		keys[i] = i;
	e = bpf_map_update_batch(fd, keys, buf, &count, &opts);
	free(keys);
	if (!e && count == entries)
		return 0;
	for (i = 0; i < entries; i++)
		if (bpf_map_update_elem(fd, &i,
					(const char *)buf + (size_t)i * value_size,
					BPF_ANY))
			return -errno;
	return 0;
}

int rfs_check_maps(const struct rfs_map_check *m, size_t n, char *err)
{
	struct bpf_map_info info;
	__u32 len;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (m[i].fd < 0)
			continue;	/* missing: reported as incomplete */
		if (bpf_obj_get_info_by_fd(m[i].fd, &info, &len))
			return rfs_errf(err, errno, "can't read pinned map %s: %s",
					m[i].name, strerror(errno));
		if (info.key_size != sizeof(__u32) ||
		    info.value_size != m[i].value_size)
			return rfs_errf(err, EPROTO,
					"pinned map %s has %u-byte values, this build's are %u: it was made by another build of xdp-rfs",
					m[i].name, info.value_size,
					m[i].value_size);
	}
	return 0;
}

__u32 rfs_obj_id(int fd)
{
	/* prog and map info both start with type, then id */
	union {
		struct bpf_prog_info prog;
		struct bpf_map_info map;
	} info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.prog.id;
}

void *rfs_lookup_percpu(int fd, __u32 key, size_t size, int *ncpu)
{
	int n = libbpf_num_possible_cpus();
	char *buf;

	*ncpu = 0;
	if (n <= 0) {
		errno = n < 0 ? -n : EINVAL;
		return NULL;
	}
	buf = calloc(n, rfs_percpu_stride(size));
	if (!buf)
		return NULL;
	if (bpf_map_lookup_elem(fd, &key, buf)) {
		int e = errno;

		free(buf);
		errno = e;
		return NULL;
	}
	*ncpu = n;
	return buf;
}

int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n)
{
	size_t stride = rfs_percpu_stride(size);
	int ncpu, i;
	char *buf;

	buf = rfs_lookup_percpu(fd, key, size, &ncpu);
	if (!buf)
		return -errno;
	for (i = 0; i < n && i < ncpu; i++)
		memcpy((char *)out + i * size, buf + i * stride, size);
	free(buf);
	return 0;
}

int rfs_get_pinned(const char *base, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (rfs_path(path, "%s/%s/%s", base, dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int rfs_pin_at(const char *base, int fd, const char *dir, const char *name,
	       char *err)
{
	char path[PATH_MAX];

	if (rfs_path(path, "%s/%s/%s", base, dir, name))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				base);
	rfs_pin_unlink(path);
	if (bpf_obj_pin(fd, path))
		return rfs_errf(err, errno, "can't pin '%s': %s", path,
				strerror(errno));
	return 0;
}

void rfs_wait_rcu(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(50000);
}

/* libbpf warns about many things it then handles: all at -v only */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (rfs_log_verbose())
		rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (rfs_log_verbose())
		rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

void rfs_log_hook_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
