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
 *   rfs_seq recv LOCAL PORT PEER PEERPORT SECONDS [BOUNCE_MS [FIRST_CPU
 *                [RCVBUF [READ_US]]]]
 *   rfs_seq send LOCAL PORT PEER PEERPORT SECONDS PPS [NFLOWS]
 *
 * With BOUNCE_MS the receiver pins itself to CPU FIRST_CPU (default 0)
 * and then to the next online CPU number every BOUNCE_MS: receivers
 * started with different FIRST_CPUs hop out of phase (BOUNCE_MS 0: no
 * hops).  RCVBUF sets SO_RCVBUF (the kernel doubles it and keeps a
 * floor; default 4 MiB) and READ_US sleeps that long after each
 * datagram: a slow reader whose socket overflows.  send with NFLOWS
 * sends NFLOWS flows, PORT + i to PEERPORT + i, each at PPS, from one
 * process, and prints their total.
 *
 * Both ends bind and connect, so the socket side records the flow; recv
 * with PEERPORT 0 leaves its socket unconnected (it reads from anyone, as
 * a DNS server's does: no flow of its own to record).  recv
 * prints one JSON object; it exits 0 unless it could not run.  It ends
 * after SECONDS, or 1 s (RFS_SEQ_QUIET in the environment: that many
 * seconds) after its last datagram once it has had some (the sender is
 * done: waiting longer would count nothing more).  Which of the two
 * ended it is "drained" (1: the quiet time; what was never read then
 * never came), and "active_s" is the time from its first
 * datagram to its last: received / active_s is what it drained, the
 * figure a test sizes its load from.  send prints "send_errors", the
 * datagrams the sending socket refused: they are gaps at the receiver
 * that no counter on the receiving side saw.  A sender stopped (SIGSTOP)
 * and continued picks up at its rate, without the arrears of the stop,
 * and sends SECONDS in all: a test pauses the traffic that way to change
 * something between bursts.  SIGTERM ends either side early and it
 * prints its totals: a sender as if its SECONDS were up, a receiver once
 * it has read what its socket holds ("drained": 1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
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
	    (atoi(argv[3]) && connect(fd, (void *)&peer, plen))) {
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

/* SIGTERM: end early (see the head) */
static volatile sig_atomic_t done;

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

static int do_recv(char **argv, int argc)
{
	int fd = flow_socket(argv), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double end = now() + atof(argv[4]), next_hop, last = 0;
	double bounce = argc > 5 ? atof(argv[5]) / 1000 : 0;
	uint64_t received = 0, inversions = 0, max_seq = 0, moves = 0;
	struct timeval tv = { 0, 100000 };
	int cpu = argc > 6 ? atoi(argv[6]) % ncpu : 0, have = 0, drained = 0;
	int rcvbuf = argc > 7 ? atoi(argv[7]) : 0;
	useconds_t read_us = argc > 8 ? atoi(argv[8]) : 0;
	const char *q = getenv("RFS_SEQ_QUIET");
	double first = 0, quiet = q ? atof(q) : 1.0;
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bounce)
		pin(cpu);
	next_hop = now() + bounce;
	while (now() < end) {
		uint64_t seq;
		ssize_t n = recv(fd, &seq, sizeof(seq), done ? MSG_DONTWAIT : 0);

		if (bounce && now() >= next_hop) {
			cpu = (cpu + 1) % ncpu;
			pin(cpu);
			moves++;
			next_hop = now() + bounce;
		}
		if (n != sizeof(seq)) {
			if (done || (received && now() - last > quiet)) {
				drained = 1;
				break;
			}
			continue;
		}
		if (read_us)
			usleep(read_us);
		last = now();
		if (!received)
			first = last;
		received++;
		if (have && seq < max_seq)
			inversions++;
		if (!have || seq > max_seq)
			max_seq = seq;
		have = 1;
	}
	printf("{\"received\": %llu, \"inversions\": %llu, \"lost\": %llu, \"max_seq\": %llu, \"cpu_moves\": %llu, \"drained\": %d, \"active_s\": %.6f}\n",
	       (unsigned long long)received, (unsigned long long)inversions,
	       (unsigned long long)(have && max_seq + 1 > received ?
				    max_seq + 1 - received : 0),
	       (unsigned long long)max_seq, (unsigned long long)moves,
	       drained, received ? last - first : 0);
	return 0;
}

#define RFS_SEQ_MAX_FLOWS	256
#define RFS_SEQ_BURST		32
#define RFS_SEQ_STOPPED		0.25	/* s between passes: it was stopped */

/* NFLOWS flows from one process: PORT + i to PEERPORT + i, each paced at
 * PPS.  One timer loop for all of them, not one process each: a sender
 * per flow waking 5000 times a second would load the scheduler more
 * than the traffic does the stack. */
static int do_send(char **argv, int argc)
{
	int nflows = argc > 6 ? atoi(argv[6]) : 1;
	double start = now(), end = start + atof(argv[4]);
	double pps = atof(argv[5]);
	uint64_t seq[RFS_SEQ_MAX_FLOWS] = { 0 }, total = 0, errors = 0;
	int fd[RFS_SEQ_MAX_FLOWS], i;
	char port[16], peerport[16];
	char *args[4] = { argv[0], port, argv[2], peerport };
	double t, prev = start;
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	if (nflows < 1 || nflows > RFS_SEQ_MAX_FLOWS) {
		fprintf(stderr, "rfs_seq: NFLOWS must be 1..%d\n",
			RFS_SEQ_MAX_FLOWS);
		return 2;
	}
	for (i = 0; i < nflows; i++) {
		snprintf(port, sizeof(port), "%d", atoi(argv[1]) + i);
		snprintf(peerport, sizeof(peerport), "%d", atoi(argv[3]) + i);
		fd[i] = flow_socket(args);
	}
	for (;;) {
		/* pace: never ahead of pps; a refused or full send is a
		 * lost datagram, not a reason to spin.  A flow that fell
		 * behind gets at most RFS_SEQ_BURST a pass: a sender slower
		 * than its rate then sends every flow a little more slowly,
		 * not one flow's whole arrears while the others fall silent
		 * (a receiver takes a second of silence for the end). */
		int behind = 0;

		/* a pass this late means the process was stopped: what it
		 * would have sent meanwhile is not owed, and the stop does
		 * not count against SECONDS (nor end them) */
		t = now();
		if (t - prev > RFS_SEQ_STOPPED) {
			start += t - prev;
			end += t - prev;
		}
		prev = t;
		if (t >= end || done)
			break;
		for (i = 0; i < nflows; i++) {
			int burst = 0;

			while (seq[i] < (t - start) * pps) {
				if (burst++ == RFS_SEQ_BURST) {
					behind = 1;
					break;
				}
				if (send(fd[i], &seq[i], sizeof(seq[i]), 0) !=
				    sizeof(seq[i])) {
					if (errno != ENOBUFS &&
					    errno != ECONNREFUSED &&
					    errno != EAGAIN) {
						fprintf(stderr,
							"rfs_seq: send: %s\n",
							strerror(errno));
						return 1;
					}
					errors++;
				}
				seq[i]++;
			}
		}
		if (!behind)
			usleep(200);
	}
	for (i = 0; i < nflows; i++) {
		total += seq[i];
		close(fd[i]);
	}
	printf("{\"sent\": %llu, \"send_errors\": %llu}\n",
	       (unsigned long long)total, (unsigned long long)errors);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 7 && !strcmp(argv[1], "recv"))
		return do_recv(argv + 2, argc - 2);
	if (argc >= 8 && !strcmp(argv[1], "send"))
		return do_send(argv + 2, argc - 2);
	fprintf(stderr,
		"usage: rfs_seq recv LOCAL PORT PEER PEERPORT SECONDS [BOUNCE_MS [FIRST_CPU [RCVBUF [READ_US]]]]\n"
		"       rfs_seq send LOCAL PORT PEER PEERPORT SECONDS PPS [NFLOWS]\n");
	return 2;
}
