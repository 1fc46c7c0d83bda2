/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the tests/prog tests: find the cgroup v2 mount, run
 * a shell command quietly, sum per-CPU counters, and open a datapath of
 * our own (a unique pin dir) so tests never touch a running rfsd.
 */
#ifndef RFS_TEST_UTIL_H
#define RFS_TEST_UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/types.h>

#include "rfs_dp.h"

/* The first cgroup2 mount in /proc/self/mountinfo; 0 or -1. */
static inline int rfs_tu_cgroup2(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024], mnt[512], fstype[64];
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1)
			continue;
		snprintf(buf, len, "%s", mnt);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* Run a shell command, output to /dev/null; its exit status. */
static inline int rfs_tu_sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int rfs_tu_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd) - 32, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd) - 32)
		return -1;
	strcat(cmd, " >/dev/null 2>&1");
	st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Open a datapath under pin_dir with the sockops program on the cgroup
 * v2 root; err gets the reason on failure. */
static inline int rfs_tu_dp_open(struct rfs_dp **dp, const char *pin_dir,
				 enum rfs_trace_mode mode, __u32 sock_entries,
				 char *err)
{
	struct rfs_dp_opts o = {
		.pin_dir = pin_dir,
		.trace_mode = mode,
		.sock_flow_entries = sock_entries,
	};
	char cg[512];
	bool adopted;

	if (rfs_tu_cgroup2(cg, sizeof(cg))) {
		snprintf(err, RFS_ERR_LEN, "no cgroup2 mount");
		return -1;
	}
	o.cgroup = cg;
	return rfs_dp_open(dp, &o, &adopted, err);
}

/* Sum a per-CPU array of n structs made only of __u64 counters. */
static inline void rfs_tu_sum_u64(const void *percpu, size_t size, int n,
				  void *sum)
{
	const __u64 *v = percpu;
	__u64 *s = sum;
	size_t words = size / sizeof(__u64), i;
	int c;

	memset(sum, 0, size);
	for (c = 0; c < n; c++)
		for (i = 0; i < words; i++)
			s[i] += v[(size_t)c * words + i];
}

/* Pin this thread to cpu, its affinity before saved in old: 0, or -1
 * with the reason on stderr after "who: ". */
static inline int rfs_tu_pin_cpu(const char *who, int cpu, cpu_set_t *old)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: can't pin to CPU %d: %s\n", who, cpu,
			strerror(errno));
		return -1;
	}
	if (sched_getcpu() != cpu) {
		fprintf(stderr, "%s: pinned to CPU %d, running on %d\n", who,
			cpu, sched_getcpu());
		sched_setaffinity(0, sizeof(*old), old);
		return -1;
	}
	return 0;
}

/* An interface's counters summed over its n CPUs: 0 or -errno. */
static inline int rfs_tu_if_stats(const struct rfs_if *ifc, int n,
				  struct rfs_if_stats *sum)
{
	struct rfs_if_stats *v = calloc(n, sizeof(*v));
	int e;

	if (!v)
		return -ENOMEM;
	e = rfs_if_read_stats(ifc, v);
	if (!e)
		rfs_tu_sum_u64(v, sizeof(*v), n, sum);
	free(v);
	return e;
}

/* after - before, counter by counter. */
static inline struct rfs_if_stats
rfs_tu_stats_sub(const struct rfs_if_stats *after,
		 const struct rfs_if_stats *before)
{
	const __u64 *a = (const __u64 *)after, *b = (const __u64 *)before;
	struct rfs_if_stats d;
	__u64 *o = (__u64 *)&d;
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(__u64); i++)
		o[i] = a[i] - b[i];
	return d;
}

static inline void rfs_tu_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * The kernel's jiffies, as /proc/timer_list prints them ("jiffies: N",
 * root only); 0 when they can't be read.  What bpf_jiffies64() returns
 * at the same moment, so a test can bracket a value the datapath wrote.
 */
static inline __u64 rfs_tu_jiffies(void)
{
	FILE *f = fopen("/proc/timer_list", "re");
	unsigned long long j = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "jiffies: %llu", &j) == 1)
			break;
	fclose(f);
	return j;
}

#endif /* RFS_TEST_UTIL_H */
