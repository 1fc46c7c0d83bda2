// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_seq: an ordering oracle that does not depend on xdp-rfs.  The sender
 * numbers UDP datagrams of one connected flow; the receiver, which may
 * hop between CPUs while it reads (so the flow's steering target moves),
 * counts datagrams that arrive after a higher number (inversions: real
 * reordering) apart from numbers that never arrive (gaps: loss).  TCP's
 * own counters mix the two, since a lost segment also lands in the
 * out-of-order queue.
 *
 *   rfs_seq recv LOCAL PORT PEER PEERPORT SECONDS [BOUNCE_MS]
 *   rfs_seq send LOCAL PORT PEER PEERPORT SECONDS PPS
 *
 * Both ends bind and connect, so the socket side records the flow.  recv
 * prints one JSON object; it exits 0 unless it could not run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int to_sockaddr(const char *addr, int port, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct sockaddr_in6 *s6 = (void *)ss;
	struct sockaddr_in *s4 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return AF_INET6;
	}
	fprintf(stderr, "rfs_seq: bad address '%s'\n", addr);
	exit(2);
}

static int flow_socket(char **argv)
{
	struct sockaddr_storage local, peer;
	socklen_t llen, plen;
	int fam, fd, one = 1, buf = 4 << 20;

	fam = to_sockaddr(argv[0], atoi(argv[1]), &local, &llen);
	to_sockaddr(argv[2], atoi(argv[3]), &peer, &plen);
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)) ||
	    bind(fd, (void *)&local, llen) ||
	    connect(fd, (void *)&peer, plen)) {
		fprintf(stderr, "rfs_seq: can't set up socket %s:%s -> %s:%s: %s\n",
			argv[0], argv[1], argv[2], argv[3], strerror(errno));
		exit(1);
	}
	return fd;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int do_recv(char **argv, int argc)
{
	int fd = flow_socket(argv), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double end = now() + atof(argv[4]), next_hop;
	double bounce = argc > 5 ? atof(argv[5]) / 1000 : 0;
	uint64_t received = 0, inversions = 0, max_seq = 0, moves = 0;
	struct timeval tv = { 0, 100000 };
	int cpu = 0, have = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bounce)
		pin(cpu);
	next_hop = now() + bounce;
	while (now() < end) {
		uint64_t seq;
		ssize_t n = recv(fd, &seq, sizeof(seq), 0);

		if (bounce && now() >= next_hop) {
			cpu = (cpu + 1) % ncpu;
			pin(cpu);
			moves++;
			next_hop = now() + bounce;
		}
		if (n != sizeof(seq))
			continue;
		received++;
		if (have && seq < max_seq)
			inversions++;
		if (!have || seq > max_seq)
			max_seq = seq;
		have = 1;
	}
	printf("{\"received\": %llu, \"inversions\": %llu, \"lost\": %llu, \"max_seq\": %llu, \"cpu_moves\": %llu}\n",
	       (unsigned long long)received, (unsigned long long)inversions,
	       (unsigned long long)(have && max_seq + 1 > received ?
				    max_seq + 1 - received : 0),
	       (unsigned long long)max_seq, (unsigned long long)moves);
	return 0;
}

static int do_send(char **argv)
{
	int fd = flow_socket(argv);
	double start = now(), end = start + atof(argv[4]);
	double pps = atof(argv[5]);
	uint64_t seq = 0;
	double t;

	while ((t = now()) < end) {
		/* pace: never ahead of pps; a refused or full send is a
		 * lost datagram, not a reason to spin */
		while (seq < (t - start) * pps) {
			if (send(fd, &seq, sizeof(seq), 0) != sizeof(seq) &&
			    errno != ENOBUFS && errno != ECONNREFUSED &&
			    errno != EAGAIN) {
				fprintf(stderr, "rfs_seq: send: %s\n",
					strerror(errno));
				return 1;
			}
			seq++;
		}
		usleep(200);
	}
	printf("{\"sent\": %llu}\n", (unsigned long long)seq);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 7 && !strcmp(argv[1], "recv"))
		return do_recv(argv + 2, argc - 2);
	if (argc >= 8 && !strcmp(argv[1], "send"))
		return do_send(argv + 2);
	fprintf(stderr,
		"usage: rfs_seq recv LOCAL PORT PEER PEERPORT SECONDS [BOUNCE_MS]\n"
		"       rfs_seq send LOCAL PORT PEER PEERPORT SECONDS PPS\n");
	return 2;
}
