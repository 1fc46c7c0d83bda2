/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging for rfsd and rfsctl to stderr, pr_debug at -v only.  Under
 * systemd (INVOCATION_ID) lines get a priority prefix (<4>) so the journal
 * keeps the level.  Messages: "can't <verb> <object> '<name>': <cause>".
 * And the monotonic clock their deadlines and rates use: a change of the
 * wall clock must not bend them.
 */
#ifndef RFS_LOG_H
#define RFS_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <time.h>

enum rfs_log_level { RFS_LOG_WARN, RFS_LOG_INFO, RFS_LOG_DEBUG };

/* prog: "rfsd" or "rfsctl"; verbose: show debug and libbpf output. */
void rfs_log_init(const char *prog, bool verbose);
void rfs_log(enum rfs_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a va_list: for libraries' own print hooks (rfs_bpf.c). */
void rfs_vlog(enum rfs_log_level lvl, const char *fmt, va_list ap);

/* One line per state change of an interface (fmt, a literal, has no '\n'):
 *	iface 'veth0' (ifindex 7): attached, mode native, ...: rfsctl attach, uid 0 pid 42 */
#define rfs_log_iface(lvl, name, ifindex, fmt, ...)			\
	rfs_log(lvl, "iface '%s' (ifindex %d): " fmt "\n", name, ifindex,	\
		##__VA_ARGS__)

#define pr_warn(...)	rfs_log(RFS_LOG_WARN, __VA_ARGS__)
#define pr_info(...)	rfs_log(RFS_LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	rfs_log(RFS_LOG_DEBUG, __VA_ARGS__)

static inline long long rfs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long long rfs_mono_ms(void)
{
	return rfs_mono_ns() / 1000000;
}

#endif /* RFS_LOG_H */
