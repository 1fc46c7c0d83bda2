// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_bulk: one bulk TCP stream whose receiver hops between CPUs, for the
 * bench's ordering A/B (order-bulk): every hop moves the flow's steering
 * target, and a steering that moves a flow before its frames on the old
 * CPU are delivered reorders it.
 *
 *   rfs_bulk sink --bind ADDR --port P --seconds S [--hop-ms M --cpus LIST]
 *   rfs_bulk source --addr ADDR --port P --seconds S
 *
 * sink accepts one connection and reads it to its end (or S + 5 s),
 * pinning itself to the next CPU of LIST every M ms; then prints
 * "bytes= gbps= hops= rcv_ooopack=" (TCP_INFO: segments this socket
 * queued out of order: reordering, or a loss before them).  source
 * sends for S seconds and prints "bytes= total_retrans= reord_seen=
 * dsack_dups=" from its TCP_INFO.
 */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/rfs_toolutil.h"

#define BULK_CHUNK	(256 * 1024)

struct bulk_opts {
	const char *addr;
	int port, hop_ms;
	double seconds;
	int cpus[RFS_TOOL_MAX_CPUS], ncpus;
};

__attribute__((noreturn)) static void bulk_usage(void)
{
	fprintf(stderr,
		"usage: rfs_bulk sink --bind ADDR --port P --seconds S [--hop-ms M --cpus LIST]\n"
		"       rfs_bulk source --addr ADDR --port P --seconds S\n");
	exit(2);
}

static void bulk_info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len);
}

static int bulk_sink(const struct bulk_opts *o, char *buf)
{
	int lfd = rfs_tcp_listen(o->addr, o->port), fd, k = 0;
	uint64_t bytes = 0, t0, end, next_hop, hops = 0, now;
	struct timeval tv = { 0, 100000 };
	struct tcp_info ti;

	if (o->hop_ms > 0)
		rfs_pin_self(o->cpus[0]);
	printf("listening on %s:%d\n", o->addr, o->port);
	fflush(stdout);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		rfs_tool_die("can't accept: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = rfs_now_ns();
	end = t0 + (uint64_t)((o->seconds + 5) * 1e9);
	next_hop = t0 + o->hop_ms * 1000000ULL;
	while ((now = rfs_now_ns()) < end) {
		ssize_t n = recv(fd, buf, BULK_CHUNK, 0);

		if (o->hop_ms > 0 && now >= next_hop) {
			k = (k + 1) % o->ncpus;
			rfs_pin_self(o->cpus[k]);
			hops++;
			next_hop = now + o->hop_ms * 1000000ULL;
		}
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			rfs_tool_die("can't receive: %s", strerror(errno));
		}
		bytes += n;
	}
	bulk_info(fd, &ti);
	printf("bytes=%llu gbps=%.3f hops=%llu rcv_ooopack=%u\n",
	       (unsigned long long)bytes,
	       bytes * 8 / ((rfs_now_ns() - t0) / 1e9) / 1e9,
	       (unsigned long long)hops, ti.tcpi_rcv_ooopack);
	close(fd);
	close(lfd);
	return bytes ? 0 : 1;
}

static int bulk_source(const struct bulk_opts *o, char *buf)
{
	int fd = rfs_tcp_connect(o->addr, o->port);
	uint64_t bytes = 0, end = rfs_now_ns() + (uint64_t)(o->seconds * 1e9);
	struct tcp_info ti;

	while (rfs_now_ns() < end) {
		if (rfs_send_all(fd, buf, BULK_CHUNK))
			rfs_tool_die("can't send: %s", strerror(errno));
		bytes += BULK_CHUNK;
	}
	shutdown(fd, SHUT_WR);
	/* the sink closes once it has read everything: then the counters
	 * include every retransmission */
	while (recv(fd, buf, BULK_CHUNK, 0) > 0)
		;
	bulk_info(fd, &ti);
	printf("bytes=%llu total_retrans=%u reord_seen=%u dsack_dups=%u\n",
	       (unsigned long long)bytes, ti.tcpi_total_retrans,
	       ti.tcpi_reord_seen, ti.tcpi_dsack_dups);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct bulk_opts o = { .seconds = 2 };
	char *buf;
	int i, rc;

	rfs_tool_name = "rfs_bulk";
	if (argc < 2)
		bulk_usage();
	for (i = 2; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			bulk_usage();
		if (!strcmp(k, "--bind") || !strcmp(k, "--addr"))
			o.addr = v;
		else if (!strcmp(k, "--port"))
			o.port = atoi(v);
		else if (!strcmp(k, "--seconds"))
			o.seconds = atof(v);
		else if (!strcmp(k, "--hop-ms"))
			o.hop_ms = atoi(v);
		else if (!strcmp(k, "--cpus"))
			o.ncpus = rfs_cpulist(v, o.cpus, RFS_TOOL_MAX_CPUS);
		else
			bulk_usage();
	}
	if (!o.addr || o.port <= 0 || o.seconds <= 0 ||
	    (o.hop_ms > 0 && !o.ncpus))
		bulk_usage();
	buf = malloc(BULK_CHUNK);
	if (!buf)
		rfs_tool_die("can't allocate a buffer: out of memory");
	memset(buf, 'b', BULK_CHUNK);
	if (!strcmp(argv[1], "sink"))
		rc = bulk_sink(&o, buf);
	else if (!strcmp(argv[1], "source"))
		rc = bulk_source(&o, buf);
	else
		bulk_usage();
	free(buf);
	return rc;
}
