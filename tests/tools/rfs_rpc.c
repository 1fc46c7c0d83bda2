// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_rpc: an RPC server after the kernel RFS patch's RPC test (100
 * threads doing user-space work per request): a pool of threads larger
 * than the CPU count, none pinned, so the scheduler moves them and RFS
 * has to follow; every request costs a fixed amount of work on a buffer
 * of its connection, so running where the connection's data is warm
 * (cache locality) matters.
 *
 *   rfs_rpc --bind ADDR --port P [--threads N] [--size B] [--buf-kib K]
 *           [--passes R] [--stats FILE]
 *
 * N threads (default 4 x the online CPUs), each serving its connections
 * from its own epoll; one acceptor hands connection i to thread i % N.
 * For every B bytes read (default 1) the thread walks the connection's
 * K KiB buffer (default 32) R times (default 4), reading and rewriting
 * every 64-bit word, then answers B bytes.  Drive it with
 * rfs_rr client --size B (and --stats FILE, to have the locality over
 * its window).  --stats FILE counts receive locality as rfs_rr server
 * does (lib/rfs_locality.h): whether the thread that read a connection
 * ran on the CPU that processed its last incoming frame; here the thread
 * is wherever the scheduler put it.  SIGTERM or SIGINT ends it; it
 * prints the requests served (and the locality totals).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/rfs_locality.h"
#include "lib/rfs_toolutil.h"

#define RPC_MAX_SIZE	65536

struct rpc_opts {
	const char *addr, *stats;
	int port, threads, passes;
	size_t size, buf_words;
};

struct rpc_conn {
	int fd;
	size_t got;
	uint32_t nrecv;		/* receives with data (sampling) */
	uint64_t *buf;		/* the connection's own data */
};

struct rpc_thread {
	pthread_t tid;
	int epfd;
	const struct rpc_opts *o;
	uint64_t served;
};

static atomic_int rpc_stop;
static struct rfs_loc *rpc_loc;		/* --stats */

/* The request's work: every word read and written, R times.  The result
 * feeds the next pass so the compiler can't drop any of it. */
static uint64_t rpc_work(struct rpc_conn *c, const struct rpc_opts *o)
{
	uint64_t acc = c->buf[0];
	size_t i;
	int r;

	for (r = 0; r < o->passes; r++)
		for (i = 0; i < o->buf_words; i++) {
			acc = acc * 6364136223846793005ULL + c->buf[i];
			c->buf[i] = acc ^ (acc >> 29);
		}
	return acc;
}

static void rpc_close(struct rpc_thread *t, struct rpc_conn *c)
{
	epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->buf);
	free(c);
}

static void *rpc_serve(void *arg)
{
	struct rpc_thread *t = arg;
	struct epoll_event ev[64];
	char *buf = malloc(RPC_MAX_SIZE);

	if (!buf)
		rfs_tool_die("can't allocate a buffer: out of memory");
	memset(buf, 'r', RPC_MAX_SIZE);
	while (!atomic_load(&rpc_stop)) {
		int n = epoll_wait(t->epfd, ev, 64, 200), i;

		for (i = 0; i < n; i++) {
			struct rpc_conn *c = ev[i].data.ptr;
			ssize_t r = recv(c->fd, buf, RPC_MAX_SIZE, MSG_DONTWAIT);

			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				rpc_close(t, c);
				continue;
			}
			rfs_loc_sample(rpc_loc, c->fd, &c->nrecv);
			for (c->got += r; c->got >= t->o->size;
			     c->got -= t->o->size) {
				buf[0] = (char)rpc_work(c, t->o);
				if (rfs_send_all(c->fd, buf, t->o->size))
					break;
				t->served++;
			}
		}
	}
	free(buf);
	return NULL;
}

static void rpc_on_signal(int sig)
{
	atomic_store(&rpc_stop, 1);
}

static void rpc_usage(void)
{
	fprintf(stderr,
		"usage: rfs_rpc --bind ADDR --port P [--threads N] [--size B] [--buf-kib K]\n"
		"               [--passes R] [--stats FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rpc_opts o = { .size = 1, .passes = 4, .buf_words = 32 * 128 };
	struct sigaction sa = { .sa_handler = rpc_on_signal };
	struct rpc_thread *t;
	uint64_t served = 0;
	unsigned long next = 0;
	int i, lfd;

	rfs_tool_name = "rfs_rpc";
	o.threads = 4 * sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			rpc_usage();
		if (!strcmp(k, "--bind"))
			o.addr = v;
		else if (!strcmp(k, "--port"))
			o.port = atoi(v);
		else if (!strcmp(k, "--threads"))
			o.threads = atoi(v);
		else if (!strcmp(k, "--size"))
			o.size = strtoul(v, NULL, 10);
		else if (!strcmp(k, "--buf-kib"))
			o.buf_words = strtoul(v, NULL, 10) * 128;
		else if (!strcmp(k, "--passes"))
			o.passes = atoi(v);
		else if (!strcmp(k, "--stats"))
			o.stats = v;
		else
			rpc_usage();
	}
	if (!o.addr || o.port <= 0)
		rpc_usage();
	if (o.threads < 1 || o.threads > 4096 || o.size < 1 ||
	    o.size > RPC_MAX_SIZE || !o.buf_words || o.passes < 0)
		rfs_tool_die("can't use threads %d size %zu buf-kib %zu passes %d",
			     o.threads, o.size, o.buf_words / 128, o.passes);
	t = calloc(o.threads, sizeof(*t));
	if (!t)
		rfs_tool_die("can't allocate threads: out of memory");
	rpc_loc = rfs_loc_open(o.stats, 1);
	lfd = rfs_tcp_listen(o.addr, o.port);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < o.threads; i++) {
		t[i].o = &o;
		t[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (t[i].epfd < 0 || pthread_create(&t[i].tid, NULL, rpc_serve, &t[i]))
			rfs_tool_die("can't start thread: %s", strerror(errno));
	}
	printf("listening on %s:%d, %d threads, %zu KiB x %d passes per request\n",
	       o.addr, o.port, o.threads, o.buf_words / 128, o.passes);
	fflush(stdout);
	for (;;) {
		int fd = rfs_tcp_accept(lfd, &rpc_stop);
		struct epoll_event ev = { .events = EPOLLIN };
		struct rpc_conn *c;

		if (fd < 0)
			break;
		c = calloc(1, sizeof(*c));
		if (c)
			c->buf = calloc(o.buf_words, sizeof(uint64_t));
		if (!c || !c->buf)
			rfs_tool_die("can't allocate a connection: out of memory");
		c->fd = fd;
		ev.data.ptr = c;
		if (epoll_ctl(t[next++ % o.threads].epfd, EPOLL_CTL_ADD, fd, &ev))
			rfs_tool_die("can't add a connection: %s", strerror(errno));
	}
	for (i = 0; i < o.threads; i++) {
		pthread_join(t[i].tid, NULL);
		served += t[i].served;
	}
	printf("served=%llu", (unsigned long long)served);
	rfs_loc_print_totals(rpc_loc, stdout);
	printf("\n");
	return 0;
}
