// SPDX-License-Identifier: GPL-2.0
/* What the datapath's modules do with libbpf and bpffs that is about none
 * of them in particular: tables, per-CPU values, pins and the pin dir. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <linux/membarrier.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "rfs_dp.h"
#include "rfs_jiffies.skel.h"

int rfs_errf(char *err, int e, const char *fmt, ...)
{
	va_list ap;

	e = e > 0 ? -e : e;
	if (err) {
		errno = -e;	/* for %m */
		va_start(ap, fmt);
		vsnprintf(err, RFS_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	return e;
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

void *rfs_array_read(int fd, __u32 value_size, __u32 entries)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 *keys, done = 0, next = 0, count, i;
	char *buf = calloc(entries ? entries : 1, value_size);
	int e = 0;

	keys = buf ? calloc(entries ? entries : 1, sizeof(*keys)) : NULL;
	if (!keys) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	while (!e && done < entries) {
		count = entries - done;
		e = bpf_map_lookup_batch(fd, done ? &next : NULL, &next,
					 keys + done,
					 buf + (size_t)done * value_size,
					 &count, &opts);
		done += count;
	}
	free(keys);
	for (i = 0; done < entries && i < entries; i++) {
		if (bpf_map_lookup_elem(fd, &i, buf + (size_t)i * value_size)) {
			free(buf);	/* keeps errno (glibc 2.33) */
			return NULL;
		}
	}
	return buf;
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

__u32 rfs_sock_desired_cpu(int flows_fd, const struct rfs_globals *g,
			   __u32 hash)
{
	__u32 idx = rfs_sock_index(hash, g->sock_flow_mask);
	rfs_sock_entry_t e;

	if (bpf_map_lookup_elem(flows_fd, &idx, &e))
		return RFS_NO_CPU;
	return rfs_sock_entry_cpu(e, hash, g->cpu_mask);
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
		free(buf);	/* keeps errno (glibc 2.33) */
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
	unlink(path);	/* a pin replaced; missing is fine */
	if (bpf_obj_pin(fd, path))
		return rfs_errf(err, errno, "can't pin '%s': %m", path);
	return 0;
}

static int rfs_check_map(int fd, const char *name, __u32 value_size, char *err)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return rfs_errf(err, errno, "can't read pinned map %s: %m",
				name);
	if (info.key_size != sizeof(__u32) || info.value_size != value_size)
		return rfs_errf(err, EPROTO,
				"pinned map %s has %u-byte values, this build's are %u: it was made by another build of xdp-rfs",
				name, info.value_size, value_size);
	return 0;
}

int rfs_pins_open(const char *base, const char *sub, void *obj,
		  const struct rfs_pin *p, size_t n, char *err)
{
	int e = 0, missing = 0, *fd;
	size_t i;

	for (i = 0; i < n; i++) {
		fd = rfs_pin_fd(obj, &p[i]);
		*fd = rfs_get_pinned(base, p[i].dir ?: sub, p[i].name);
		if (*fd < 0 && !missing)
			missing = *fd;
		if (!e && *fd >= 0 && p[i].value_size)
			e = rfs_check_map(*fd, p[i].name, p[i].value_size, err);
	}
	return e ? e : missing;
}

int rfs_pins_pin(const char *base, const char *sub, void *obj,
		 const struct rfs_pin *p, size_t n, char *err)
{
	size_t i;
	int e = 0;

	for (i = 0; !e && i < n; i++)
		e = rfs_pin_at(base, *rfs_pin_fd(obj, &p[i]), p[i].dir ?: sub,
			       p[i].name, err);
	return e;
}

void rfs_pins_reset(void *obj, const struct rfs_pin *p, size_t n,
		    bool close_them)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (close_them && *rfs_pin_fd(obj, &p[i]) >= 0)
			close(*rfs_pin_fd(obj, &p[i]));
		*rfs_pin_fd(obj, &p[i]) = -1;
	}
}

void rfs_wait_rcu(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(50000);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

void rfs_log_hook_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

/* Loaded at the first call, kept: a scan reads it once per table.
 * /proc/timer_list where the kernel has no syscall programs (before
 * 5.14), which root alone may read. */
bool rfs_read_jiffies(__u64 *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = out,
		    .ctx_size_in = sizeof(*out));
	static struct rfs_jiffies *skel;
	static bool tried;

	if (!tried) {
		tried = true;
		skel = rfs_jiffies__open_and_load();
	}
	if (skel && !bpf_prog_test_run_opts(
			bpf_program__fd(skel->progs.rfs_jiffies), &o))
		return true;
	return !rfs_file_u64("/proc/timer_list", "jiffies:", out);
}

#define RFS_BPFFS_ROOT "/sys/fs/bpf"

int rfs_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

int rfs_pin_ensure_bpffs(const char *pin_dir, char *err)
{
	char parent[PATH_MAX];
	struct statfs st;
	char *slash;

	/* The pin dir itself, or the nearest existing parent, decides. */
	snprintf(parent, sizeof(parent), "%s", pin_dir);
	while (access(parent, F_OK) && (slash = strrchr(parent, '/')) &&
	       slash != parent)
		*slash = '\0';
	if (!statfs(parent, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (strncmp(pin_dir, RFS_BPFFS_ROOT "/", strlen(RFS_BPFFS_ROOT) + 1))
		return rfs_errf(err, EINVAL, "pin dir '%s' is not on a bpffs",
				pin_dir);
	/* Under systemd rfsd runs in the unit's own mount namespace: a
	 * bpffs mounted there would go with the unit, pins and all. */
	if (getenv("INVOCATION_ID"))
		return rfs_errf(err, ENOTSUP,
				"'%s' is not a bpffs, and under systemd rfsd won't mount one: in the unit's mount namespace it would vanish with rfsd, pins and all; mount it on the host (mount -t bpf bpf %s)",
				RFS_BPFFS_ROOT, RFS_BPFFS_ROOT);
	if (mount("bpf", RFS_BPFFS_ROOT, "bpf", 0, "mode=0700"))
		return rfs_errf(err, errno, "can't mount bpffs at '%s': %m",
				RFS_BPFFS_ROOT);
	return 0;
}

int rfs_pin_mkdirs(const char *path)
{
	char buf[PATH_MAX], *p, c;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

int rfs_pin_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	return fd;
}

/* Never through a symlink: a link under the pin dir may point anywhere,
 * and rfsd --cleanup must remove only what is there. */
static void walk_at(int dfd, bool remove, rfs_pin_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = fdopendir(dfd);
	int sub;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode)) {
			sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				walk_at(sub, remove, fn, ctx);
		} else if (S_ISREG(st.st_mode) && fn &&
			   !rfs_path(path, "/proc/self/fd/%d/%s", dfd,
				     de->d_name)) {
			fn(path, ctx);
		}
		if (remove)
			unlinkat(dfd, de->d_name,
				 S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
	}
	closedir(d);
}

void rfs_pin_walk(const char *dir, bool remove, rfs_pin_fn fn, void *ctx)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0) {
		if (remove && (errno == ELOOP || errno == ENOTDIR))
			unlink(dir);	/* a link: itself only */
		return;
	}
	walk_at(dfd, remove, fn, ctx);
	if (remove)
		rmdir(dir);
}
