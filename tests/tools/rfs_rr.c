// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_rr: the bench's many-connection request/response load generator,
 * after netperf TCP_RR as the kernel RFS patch ran it (many instances,
 * one transaction in flight per connection).
 *
 *   rfs_rr server --bind ADDR --port P --cpus LIST [--size B] [--stats FILE]
 *   rfs_rr client --addr ADDR --port P --cpus LIST --conns N [--size B]
 *                 [--seconds S] [--warmup S] [--util-cpus LIST]
 *                 [--stats FILE]
 *
 * server: one thread per CPU of LIST, each pinned there, each serving
 * its connections from its own epoll.  One acceptor hands connection i
 * to thread i % threads, in LIST's order, i counted from 0 again
 * whenever the server has no connection open (each client run, in the
 * bench): with "--cpus 1,0" the first connection of every run is served
 * on CPU 1, so a one-connection run is deterministic however many runs
 * the server has served.  Every B bytes read are answered with B bytes.  With
 * --stats FILE it counts receive locality: whether the thread reading a
 * connection is on the CPU that processed its last incoming frame
 * (SO_INCOMING_CPU; every 8th recv of a connection sampled) into FILE,
 * a shared page (lib/rfs_locality.h), and prints the totals on exit.
 *
 * client: one thread per CPU of LIST, pinned, connection i on thread
 * i % threads; each connection sends B bytes, waits for B back, and
 * again.  After --warmup seconds it counts for --seconds: transactions/s
 * and the round-trip time of every transaction in a log-linear histogram
 * (lib/rfs_hist.c), and the busy share of the CPUs in --util-cpus
 * (default: every CPU) from /proc/stat over the same window; with
 * --stats FILE, the server's stats file (rfs_rr server or rfs_rpc
 * --stats), the server's locality samples over that window too.  It
 * prints one line of key=value pairs:
 *
 *   tps= p50_us= p90_us= p99_us= p999_us= max_us= transactions= conns=
 *   threads= errors= rx_cpu_util_pct= cpuN_util_pct=...
 *   [recv_local= recv_remote= recv_unknown= locality_pct=]
 *
 * and exits 0, or 1 when no transaction completed (nothing measured).
 * SIGTERM or SIGINT ends the server.
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/rfs_hist.h"
#include "lib/rfs_locality.h"
#include "lib/rfs_toolutil.h"

#define RR_MAX_SIZE	65536
#define RR_MAX_CONNS	4096

struct rr_opts {
	const char *addr, *stats;
	int port;
	int cpus[RFS_TOOL_MAX_CPUS], ncpus;
	int util_cpus[RFS_TOOL_MAX_CPUS], nutil;
	int conns;
	size_t size;
	double seconds, warmup;
};

struct rr_conn {
	int fd;
	size_t got;		/* bytes of the current answer/request */
	uint32_t nrecv;		/* server: receives with data (sampling) */
	uint64_t sent_ns;	/* client: when the request went out */
};

struct rr_thread {
	pthread_t tid;
	int idx, cpu, epfd;
	const struct rr_opts *o;
	struct rr_conn *conns;	/* client: its connections */
	int nconns;
	uint64_t done, errors;
	struct rfs_hist hist;
};

static atomic_int rr_ready, rr_go, rr_stop;
/* server: connections open; the acceptor restarts its count at 0 */
static atomic_int rr_live;
/* server: each open connection by its fd (fds are below RLIMIT_NOFILE),
 * so that those still open at exit are freed: the acceptor sets a slot,
 * the serving thread clears it before it closes the fd */
static _Atomic(struct rr_conn *) *rr_by_fd;
static rlim_t rr_nofile;
static uint64_t rr_t_begin, rr_t_end;	/* the measured window */
static struct rfs_loc *rr_loc;		/* server --stats */

static void rr_usage(void)
{
	fprintf(stderr,
		"usage: rfs_rr server --bind ADDR --port P --cpus LIST [--size B] [--stats FILE]\n"
		"       rfs_rr client --addr ADDR --port P --cpus LIST --conns N [--size B]\n"
		"                     [--seconds S] [--warmup S] [--util-cpus LIST] [--stats FILE]\n");
	exit(2);
}

static void rr_parse(int argc, char **argv, struct rr_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->size = 1;
	o->conns = 1;
	o->seconds = 2;
	o->warmup = 0.5;
	o->port = -1;
	for (i = 2; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			rr_usage();
		if (!strcmp(k, "--bind") || !strcmp(k, "--addr"))
			o->addr = v;
		else if (!strcmp(k, "--port"))
			o->port = atoi(v);
		else if (!strcmp(k, "--cpus"))
			o->ncpus = rfs_cpulist(v, o->cpus, RFS_TOOL_MAX_CPUS);
		else if (!strcmp(k, "--util-cpus"))
			o->nutil = rfs_cpulist(v, o->util_cpus, RFS_TOOL_MAX_CPUS);
		else if (!strcmp(k, "--conns"))
			o->conns = atoi(v);
		else if (!strcmp(k, "--size"))
			o->size = strtoul(v, NULL, 10);
		else if (!strcmp(k, "--seconds"))
			o->seconds = atof(v);
		else if (!strcmp(k, "--warmup"))
			o->warmup = atof(v);
		else if (!strcmp(k, "--stats"))
			o->stats = v;
		else
			rr_usage();
		i++;
	}
	if (!o->addr || o->port <= 0 || !o->ncpus)
		rr_usage();
	if (o->size < 1 || o->size > RR_MAX_SIZE)
		rfs_tool_die("can't use size '%zu': 1..%d bytes", o->size,
			     RR_MAX_SIZE);
	if (o->conns < 1 || o->conns > RR_MAX_CONNS)
		rfs_tool_die("can't use conns '%d': 1..%d", o->conns,
			     RR_MAX_CONNS);
	if (o->seconds <= 0 || o->warmup < 0)
		rfs_tool_die("can't use seconds '%g' warmup '%g'", o->seconds,
			     o->warmup);
}

/* ------------------------------------------------------------------ server */

static void *rr_serve(void *arg)
{
	struct rr_thread *t = arg;
	struct epoll_event ev[64];
	char *buf = malloc(RR_MAX_SIZE);

	if (!buf)
		rfs_tool_die("can't allocate a buffer: out of memory");
	memset(buf, 'r', RR_MAX_SIZE);
	rfs_pin_self(t->cpu);
	while (!atomic_load(&rr_stop)) {
		int n = epoll_wait(t->epfd, ev, 64, 200), i;

		for (i = 0; i < n; i++) {
			struct rr_conn *c = ev[i].data.ptr;
			ssize_t r = recv(c->fd, buf, RR_MAX_SIZE, MSG_DONTWAIT);

			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
				atomic_store(&rr_by_fd[c->fd], NULL);
				close(c->fd);
				free(c);
				atomic_fetch_sub(&rr_live, 1);
				continue;
			}
			rfs_loc_sample(rr_loc, c->fd, &c->nrecv);
			/* one answer per whole request read */
			for (c->got += r; c->got >= t->o->size;
			     c->got -= t->o->size)
				if (rfs_send_all(c->fd, buf, t->o->size))
					break;
		}
	}
	free(buf);
	return NULL;
}

static void rr_on_signal(int sig)
{
	atomic_store(&rr_stop, 1);
}

static int rr_server(const struct rr_opts *o)
{
	struct rr_thread *t = calloc(o->ncpus, sizeof(*t));
	struct sigaction sa = { .sa_handler = rr_on_signal };
	int lfd = rfs_tcp_listen(o->addr, o->port), i;
	unsigned long next = 0;
	struct rlimit nofile;

	if (getrlimit(RLIMIT_NOFILE, &nofile))
		rfs_tool_die("can't read RLIMIT_NOFILE: %s", strerror(errno));
	rr_nofile = nofile.rlim_cur < (1 << 20) ? nofile.rlim_cur : (1 << 20);
	rr_by_fd = calloc(rr_nofile, sizeof(*rr_by_fd));
	if (!t || !rr_by_fd)
		rfs_tool_die("can't allocate the server's threads and connection table: out of memory");
	rr_loc = rfs_loc_open(o->stats, 1);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < o->ncpus; i++) {
		t[i] = (struct rr_thread){ .idx = i, .cpu = o->cpus[i], .o = o };
		t[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (t[i].epfd < 0 ||
		    pthread_create(&t[i].tid, NULL, rr_serve, &t[i]))
			rfs_tool_die("can't start server thread: %s",
				     strerror(errno));
	}
	printf("listening on %s:%d, %d threads\n", o->addr, o->port, o->ncpus);
	fflush(stdout);
	for (;;) {
		int fd = rfs_tcp_accept(lfd, &rr_stop);
		struct epoll_event ev = { .events = EPOLLIN };
		struct rr_conn *c;

		if (fd < 0)
			break;
		c = calloc(1, sizeof(*c));
		if (!c)
			rfs_tool_die("can't allocate a connection: out of memory");
		c->fd = fd;
		if ((rlim_t)fd >= rr_nofile)
			rfs_tool_die("fd %d is over the limit of %llu", fd,
				     (unsigned long long)rr_nofile);
		atomic_store(&rr_by_fd[fd], c);
		ev.data.ptr = c;
		/* a new client run: its connection 0 goes to LIST's first
		 * CPU, whatever earlier runs left the count at */
		if (atomic_fetch_add(&rr_live, 1) == 0)
			next = 0;
		/* epoll_ctl on another thread's epoll is safe */
		if (epoll_ctl(t[next++ % o->ncpus].epfd, EPOLL_CTL_ADD, fd, &ev))
			rfs_tool_die("can't add a connection: %s", strerror(errno));
	}
	for (i = 0; i < o->ncpus; i++) {
		pthread_join(t[i].tid, NULL);
		close(t[i].epfd);
	}
	for (rlim_t fd = 0; fd < rr_nofile; fd++) {
		struct rr_conn *c = atomic_load(&rr_by_fd[fd]);

		if (c) {
			close(c->fd);
			free(c);
		}
	}
	free(rr_by_fd);
	close(lfd);
	if (rr_loc) {
		printf("stopped:");
		rfs_loc_print_totals(rr_loc, stdout);
		printf("\n");
	}
	free(t);
	return 0;
}

/* ------------------------------------------------------------------ client */

static void rr_request(struct rr_thread *t, struct rr_conn *c, const char *buf)
{
	c->got = 0;
	c->sent_ns = rfs_now_ns();
	if (rfs_send_all(c->fd, buf, t->o->size)) {
		t->errors++;
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1;
	}
}

static void *rr_load(void *arg)
{
	struct rr_thread *t = arg;
	struct epoll_event ev[64];
	char *buf = malloc(RR_MAX_SIZE);
	int i, live = t->nconns;

	if (!buf)
		rfs_tool_die("can't allocate a buffer: out of memory");
	memset(buf, 'q', RR_MAX_SIZE);
	rfs_pin_self(t->cpu);
	for (i = 0; i < t->nconns; i++) {
		struct epoll_event e = { .events = EPOLLIN,
					 .data.ptr = &t->conns[i] };

		t->conns[i].fd = rfs_tcp_connect(t->o->addr, t->o->port);
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->conns[i].fd, &e))
			rfs_tool_die("can't add a connection: %s", strerror(errno));
	}
	atomic_fetch_add(&rr_ready, 1);
	while (!atomic_load(&rr_go))
		usleep(1000);
	for (i = 0; i < t->nconns; i++)
		rr_request(t, &t->conns[i], buf);
	while (live > 0 && !atomic_load(&rr_stop)) {
		int n = epoll_wait(t->epfd, ev, 64, 20);

		for (i = 0; i < n; i++) {
			struct rr_conn *c = ev[i].data.ptr;
			ssize_t r = recv(c->fd, buf, RR_MAX_SIZE, MSG_DONTWAIT);
			uint64_t now;

			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				t->errors++;
				live--;
				epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				c->fd = -1;
				continue;
			}
			c->got += r;
			if (c->got < t->o->size)
				continue;
			now = rfs_now_ns();
			if (c->sent_ns >= rr_t_begin && now <= rr_t_end) {
				t->done++;
				rfs_hist_record(&t->hist, now - c->sent_ns);
			}
			rr_request(t, c, buf);
			if (c->fd < 0)
				live--;
		}
	}
	for (i = 0; i < t->nconns; i++)
		if (t->conns[i].fd >= 0)
			close(t->conns[i].fd);
	free(buf);
	return NULL;
}

static void rr_sleep_until(uint64_t ns)
{
	uint64_t now;

	while ((now = rfs_now_ns()) < ns) {
		uint64_t d = ns - now;
		struct timespec ts = { d / 1000000000ULL, d % 1000000000ULL };

		nanosleep(&ts, NULL);
	}
}

static int rr_client(struct rr_opts *o)
{
	struct rr_thread *t = calloc(o->ncpus, sizeof(*t));
	struct rr_conn *conns = calloc(o->conns, sizeof(*conns));
	struct rfs_cpu_time *c0 = malloc(sizeof(*c0)), *c1 = malloc(sizeof(*c1));
	struct rfs_hist *all = malloc(sizeof(*all));
	struct rfs_loc *loc = rfs_loc_open(o->stats, 0);
	struct rfs_loc_snap l0, l1;
	uint64_t done = 0, errors = 0, deadline;
	int i, k, nthreads = o->ncpus < o->conns ? o->ncpus : o->conns;

	if (!t || !conns || !c0 || !c1 || !all)
		rfs_tool_die("can't allocate: out of memory");
	if (!o->nutil) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		for (i = 0; i < n && i < RFS_TOOL_MAX_CPUS; i++)
			o->util_cpus[o->nutil++] = i;
	}
	rr_t_begin = UINT64_MAX;
	rr_t_end = 0;
	/* connection i on thread i % nthreads: contiguous slices */
	for (i = 0, k = 0; i < nthreads; i++) {
		t[i] = (struct rr_thread){ .idx = i, .cpu = o->cpus[i], .o = o };
		t[i].conns = &conns[k];
		t[i].nconns = o->conns / nthreads + (i < o->conns % nthreads);
		k += t[i].nconns;
		rfs_hist_init(&t[i].hist);
		t[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (t[i].epfd < 0 || pthread_create(&t[i].tid, NULL, rr_load, &t[i]))
			rfs_tool_die("can't start client thread: %s",
				     strerror(errno));
	}
	deadline = rfs_now_ns() + 20000000000ULL;
	while (atomic_load(&rr_ready) < nthreads) {
		if (rfs_now_ns() > deadline)
			rfs_tool_die("can't connect %d connections within 20 s",
				     o->conns);
		usleep(1000);
	}
	rr_t_begin = rfs_now_ns() + (uint64_t)(o->warmup * 1e9);
	rr_t_end = rr_t_begin + (uint64_t)(o->seconds * 1e9);
	atomic_store(&rr_go, 1);
	rr_sleep_until(rr_t_begin);
	rfs_cpu_time_read(c0);
	rfs_loc_read(loc, &l0);
	rr_sleep_until(rr_t_end);
	rfs_cpu_time_read(c1);
	rfs_loc_read(loc, &l1);
	atomic_store(&rr_stop, 1);
	rfs_hist_init(all);
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i].tid, NULL);
		rfs_hist_merge(all, &t[i].hist);
		done += t[i].done;
		errors += t[i].errors;
	}
	printf("tps=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f transactions=%llu conns=%d threads=%d size=%zu errors=%llu rx_cpu_util_pct=%.1f",
	       done / o->seconds, rfs_hist_percentile(all, 50) / 1e3,
	       rfs_hist_percentile(all, 90) / 1e3,
	       rfs_hist_percentile(all, 99) / 1e3,
	       rfs_hist_percentile(all, 99.9) / 1e3, all->max / 1e3,
	       (unsigned long long)done, o->conns, nthreads, o->size,
	       (unsigned long long)errors,
	       rfs_cpu_util(c0, c1, o->util_cpus, o->nutil));
	for (i = 0; i < o->nutil; i++)
		printf(" cpu%d_util_pct=%.1f", o->util_cpus[i],
		       rfs_cpu_util(c0, c1, &o->util_cpus[i], 1));
	if (loc)
		rfs_loc_print(&l0, &l1, stdout);
	printf("\n");
	free(all);
	free(c1);
	free(c0);
	free(conns);
	free(t);
	return done ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct rr_opts o;

	rfs_tool_name = "rfs_rr";
	if (argc < 2)
		rr_usage();
	rr_parse(argc, argv, &o);
	if (!strcmp(argv[1], "server"))
		return rr_server(&o);
	if (!strcmp(argv[1], "client"))
		return rr_client(&o);
	rr_usage();
}
