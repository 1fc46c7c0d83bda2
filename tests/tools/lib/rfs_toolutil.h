/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench's load generators share (rfs_rr, rfs_rpc, rfs_bulk):
 * clocks, CPU lists in the order given, pinning, TCP sockets, and the
 * busy time of CPUs from /proc/stat.  Errors are printed as "PROG: can't
 * <verb> <object> '<name>': <cause>" and exit 1; these are test tools.
 */
#ifndef RFS_TOOLUTIL_H
#define RFS_TOOLUTIL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RFS_TOOL_MAX_CPUS	256

extern const char *rfs_tool_name;	/* for messages */

void rfs_tool_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
uint64_t rfs_now_ns(void);		/* CLOCK_MONOTONIC */

/* "1,0" or "0-3": the CPUs in the order written (so "1,0" puts a tool's
 * first thread on CPU 1); returns how many, dies on a bad list. */
int rfs_cpulist(const char *s, int *cpus, int max);
/* Pin the calling thread to cpu; -1: no pin. */
void rfs_pin_self(int cpu);

/* A listening TCP socket on addr:port (IPv4 or IPv6 literal). */
int rfs_tcp_listen(const char *addr, int port);
/* The next connection on lfd, TCP_NODELAY on; -1 once *stop is set
 * (a signal interrupts accept).  Dies on any other error. */
int rfs_tcp_accept(int lfd, atomic_int *stop);
/* A connected TCP socket to addr:port, TCP_NODELAY on. */
int rfs_tcp_connect(const char *addr, int port);
/* send() all of buf (blocking socket); 0 or -1 */
int rfs_send_all(int fd, const void *buf, size_t len);

/* Busy and total jiffies of the CPUs in cpus[0..n) from /proc/stat
 * (busy: everything but idle and iowait). */
struct rfs_cpu_time {
	uint64_t busy[RFS_TOOL_MAX_CPUS];
	uint64_t total[RFS_TOOL_MAX_CPUS];
};
void rfs_cpu_time_read(struct rfs_cpu_time *t);
/* Percent busy of the CPUs in cpus[0..n) between a and b. */
double rfs_cpu_util(const struct rfs_cpu_time *a, const struct rfs_cpu_time *b,
		    const int *cpus, int n);

#endif /* RFS_TOOLUTIL_H */
