// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_bpfcheck.so: ASan's eyes on what the kernel copies for bpf(2).
 *
 * A lookup on a per-CPU map makes the kernel write one value per
 * *possible* CPU into the caller's buffer (copy_to_user), an update makes
 * it read as many.  ASan sees only the program's own accesses, so a
 * buffer sized by the online CPUs, or by a cap below the possible ones,
 * overflows there unseen.  Preloaded (LD_PRELOAD) into a process built
 * with ASan, this wraps glibc's syscall(), which libbpf calls for bpf(2),
 * and before each map element command checks that the whole key and
 * value the kernel will touch are addressable, then reports the access
 * as ASan reports one of the program's own (stack of the call, where
 * the buffer was allocated), and ASan's halt_on_error ends the process.
 *
 * In a process without ASan the checks are left out: its functions are
 * weak references, absent there.  tests/kernels/run.sh preloads it in
 * the guest that runs the sanitized build with many possible CPUs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void *__asan_region_is_poisoned(void *beg, size_t size) __attribute__((weak));
void __asan_report_error(void *pc, void *bp, void *sp, void *addr,
			 int is_write, size_t access_size) __attribute__((weak));

typedef long (*rfs_syscall_fn)(long, ...);

static rfs_syscall_fn rfs_real_syscall(void)
{
	static rfs_syscall_fn real;

	if (!real)
		real = (rfs_syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return real;
}

/* The number of possible CPUs, as the kernel counts them for a per-CPU
 * copy (for_each_possible_cpu): "0-299", "0-3,8-11". */
static long rfs_possible_cpus(void)
{
	static long n;
	char buf[256], *p, *end;
	long a, b;
	ssize_t len;
	int fd;

	if (n)
		return n;
	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; *p && *p != '\n'; p = *end ? end + 1 : end) {
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || b < a)
			return 0;
		n += b - a + 1;
	}
	return n;
}

static int rfs_map_percpu(__u32 type)
{
	switch (type) {
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		return 1;
	default:
		return 0;
	}
}

/* What the kernel touches of the buffer at ptr, len bytes: all of it
 * must be addressable, or the kernel's access is reported as ASan's. */
static void rfs_check(__u64 ptr, size_t len, int is_write)
{
	void *bad;

	if (!ptr || !len)
		return;
	bad = __asan_region_is_poisoned((void *)(unsigned long)ptr, len);
	if (!bad)
		return;
	__asan_report_error(__builtin_return_address(0),
			    __builtin_frame_address(0),
			    __builtin_frame_address(0), bad, is_write, len);
}

static void rfs_check_bpf(int cmd, union bpf_attr *attr)
{
	struct bpf_map_info info;
	union bpf_attr q;
	size_t vlen;
	long ncpus;

	if (cmd != BPF_MAP_LOOKUP_ELEM && cmd != BPF_MAP_UPDATE_ELEM &&
	    cmd != BPF_MAP_LOOKUP_AND_DELETE_ELEM)
		return;
	memset(&info, 0, sizeof(info));
	memset(&q, 0, sizeof(q));
	q.info.bpf_fd = attr->map_fd;
	q.info.info_len = sizeof(info);
	q.info.info = (unsigned long)&info;
	if (rfs_real_syscall()(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &q,
			       sizeof(q)))
		return;
	vlen = info.value_size;
	if (rfs_map_percpu(info.type)) {
		ncpus = rfs_possible_cpus();
		if (!ncpus)
			return;
		vlen = ((vlen + 7) & ~(size_t)7) * ncpus;
	}
	rfs_check(attr->key, info.key_size, 0);
	/* a map of maps takes an fd in, gives an id out: both 4 bytes */
	if (info.type == BPF_MAP_TYPE_ARRAY_OF_MAPS ||
	    info.type == BPF_MAP_TYPE_HASH_OF_MAPS)
		vlen = sizeof(__u32);
	rfs_check(attr->value, vlen, cmd != BPF_MAP_UPDATE_ELEM);
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf && a[1] && __asan_region_is_poisoned &&
	    __asan_report_error)
		rfs_check_bpf((int)a[0], (union bpf_attr *)a[1]);
	return rfs_real_syscall()(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
