// SPDX-License-Identifier: GPL-2.0
/* The helpers of rfs_toolutil.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rfs_toolutil.h"

const char *rfs_tool_name = "rfs_tool";

void rfs_tool_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", rfs_tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

uint64_t rfs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int rfs_cpulist(const char *s, int *cpus, int max)
{
	const char *p = s;
	int n = 0;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= RFS_TOOL_MAX_CPUS)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= RFS_TOOL_MAX_CPUS)
				goto bad;
			p = end;
		}
		for (; a <= b; a++) {
			if (n == max)
				goto bad;
			cpus[n++] = a;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (n)
		return n;
bad:
	rfs_tool_die("can't parse CPU list '%s': expected like 1,0 or 0-3", s);
}

void rfs_pin_self(int cpu)
{
	cpu_set_t set;
	int e;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	e = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (e)
		rfs_tool_die("can't pin thread to CPU '%d': %s", cpu, strerror(e));
}

static socklen_t sockaddr_of(const char *addr, int port,
			     struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (void *)ss;
	struct sockaddr_in *s4 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	rfs_tool_die("can't parse address '%s': not an IPv4 or IPv6 literal", addr);
}

int rfs_tcp_listen(const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(addr, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (void *)&ss, len) || listen(fd, 1024))
		rfs_tool_die("can't listen on '%s:%d': %s", addr, port,
			     strerror(errno));
	return fd;
}

int rfs_tcp_accept(int lfd, atomic_int *stop)
{
	int fd, one = 1;

	while (!atomic_load(stop)) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			return fd;
		}
		if (errno != EINTR)
			rfs_tool_die("can't accept: %s", strerror(errno));
	}
	return -1;
}

int rfs_tcp_connect(const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(addr, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	int i;

	if (fd < 0)
		rfs_tool_die("can't create socket: %s", strerror(errno));
	/* the server may still be coming up: a few tries */
	for (i = 0; connect(fd, (void *)&ss, len); i++) {
		if (errno != ECONNREFUSED || i == 50)
			rfs_tool_die("can't connect to '%s:%d': %s", addr, port,
				     strerror(errno));
		usleep(100000);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int rfs_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

void rfs_cpu_time_read(struct rfs_cpu_time *t)
{
	unsigned long long v[10];
	char line[512];
	FILE *f;
	int cpu, i, k;

	memset(t, 0, sizeof(*t));
	f = fopen("/proc/stat", "re");
	if (!f)
		rfs_tool_die("can't open '/proc/stat': %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		memset(v, 0, sizeof(v));
		k = sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7], &v[8], &v[9]);
		if (k < 5 || cpu < 0 || cpu >= RFS_TOOL_MAX_CPUS)
			continue;
		/* guest and guest_nice are already in user and nice */
		for (i = 0; i < 8; i++)
			t->total[cpu] += v[i];
		t->busy[cpu] = t->total[cpu] - v[3] - v[4];
	}
	fclose(f);
}

double rfs_cpu_util(const struct rfs_cpu_time *a, const struct rfs_cpu_time *b,
		    const int *cpus, int n)
{
	uint64_t busy = 0, total = 0;
	int i;

	for (i = 0; i < n; i++) {
		busy += b->busy[cpus[i]] - a->busy[cpus[i]];
		total += b->total[cpus[i]] - a->total[cpus[i]];
	}
	return total ? 100.0 * busy / total : 0;
}
