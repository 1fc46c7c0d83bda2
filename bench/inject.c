// SPDX-License-Identifier: GPL-2.0
/*
 * bench/inject: a NIC-like receive path for the bench.  Frames are
 * injected on one fixed CPU as a NIC RX queue would hand
 * them to its NAPI poll: BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES
 * on a lab interface's ifindex (ctx ingress_ifindex, rx queue 0), batches
 * of 64, repeat frames per call, from --threads threads pinned to --cpu
 * (a live-frames run sleeps for most of its wall time after its frames:
 * one thread leaves that CPU mostly idle, several offer many times
 * more).  What the
 * kernel does with each verdict is what it does for a driver:
 *
 *   XDP_PASS      the skb is built on the injecting CPU and handed to
 *                 netif_receive_skb_list() (net/bpf/test_run.c,
 *                 xdp_recv_frames), where RPS/RFS pick a backlog
 *   XDP_REDIRECT  xdp_do_redirect_frame() and a flush per batch: into
 *                 the target CPU's cpumap ring, whose kthread builds the
 *                 skb there (dev = the lab interface)
 *
 * The frames are UDP datagrams for --socks connected UDP sockets bound to
 * the lab interface's address, one flow each (bench/inject.bpf.c gives
 * each frame its flow's port, round robin); --unconnected leaves them
 * bound only, as a server that reads from anyone has them: neither RFS
 * nor rfsd learns a CPU from such a socket, both spread its flows by
 * hash, and rfsd's early drop marks the flow of each datagram refused.
 * Reader threads, pinned to the other CPUs, drain them with recvmmsg():
 * that is what RFS and rfsd learn the desired CPU from (connected
 * sockets), and what counts as delivered.
 *
 *   inject --ifname IF --src ADDR --dst ADDR [--socks N] [--port0 P]
 *          [--rport P] [--unconnected] [--cpu C] [--readers CPULIST]
 *          [--warmup S] [--secs S] [--repeat N] [--threads N] [--payload N] [--rate PPS]
 *          [--prog PIN] [--gstats PIN] [--ifstats PIN]
 *
 * Without --prog the program under test is XDP_PASS (the kernel modes);
 * --prog is rfsd's pinned rfs_xdp of IF, --gstats its pinned rfs_gstats
 * (for the cpumap ring drops and the early drops on the targets),
 * --ifstats its pinned rfs_if_stats of IF (for those at the RX CPU).
 * --rate paces the test runs (--repeat frames each) to PPS frames a
 * second in all, the threads' runs taking turns; without it the CPU
 * injects as fast as it can.  --rcvbuf sets each socket's receive
 * buffer (SO_RCVBUFFORCE).  After
 * --warmup seconds of traffic (the steering learns every socket's CPU)
 * it measures --secs seconds and
 * prints "key value" lines (bench/nic.sh turns them into TSV rows).
 * Exit 77: can't run here.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "rfs_common.h"
#include "bench/inject.skel.h"

#define RFS_INJ_SKIP		77
#define RFS_INJ_MAX_SOCKS	4096
#define RFS_INJ_MAX_CPUS	256
#define RFS_INJ_VLEN		64
#define RFS_INJ_MAX_THREADS	64

static struct {
	const char *ifname, *src, *dst, *prog_pin, *gstats_pin, *ifstats_pin;
	const char *readers;
	int socks, cpu, payload, threads, rcvbuf, unconnected;
	unsigned int port0, rport, repeat;
	double warmup, secs, rate;
} opt = {
	.socks = 64, .cpu = 0, .payload = 18, .port0 = 40000, .rport = 39999,
	.repeat = 4096, .warmup = 1.0, .secs = 3.0, .threads = 1,
};

/* One reader thread: its CPU, its sockets, what it read (written by it
 * only, read by main with relaxed atomics).  A cache line each. */
struct rfs_inj_reader {
	pthread_t tid;
	int cpu;
	int epfd;
	unsigned long long total;
	char _pad[64];
};

static int socks[RFS_INJ_MAX_SOCKS];
static unsigned long long sock_count[RFS_INJ_MAX_SOCKS];
static struct rfs_inj_reader readers[RFS_INJ_MAX_CPUS];
static int nreaders;
static volatile int stop;

static double rfs_inj_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void rfs_inj_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int rfs_inj_pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(t, sizeof(set), &set);
}

static void *rfs_inj_read(void *arg)
{
	struct rfs_inj_reader *r = arg;
	static __thread char buf[RFS_INJ_VLEN][2048];
	struct mmsghdr msgs[RFS_INJ_VLEN];
	struct iovec iov[RFS_INJ_VLEN];
	struct epoll_event ev[64];
	int i, j, n, k;

	for (i = 0; i < RFS_INJ_VLEN; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (!stop) {
		n = epoll_wait(r->epfd, ev, 64, 100);
		for (i = 0; i < n; i++) {
			j = ev[i].data.u32;
			do {
				k = recvmmsg(socks[j], msgs, RFS_INJ_VLEN,
					     MSG_DONTWAIT, NULL);
				if (k <= 0)
					break;
				__atomic_store_n(&sock_count[j], sock_count[j] + k,
						 __ATOMIC_RELAXED);
				__atomic_store_n(&r->total, r->total + k,
						 __ATOMIC_RELAXED);
			} while (k == RFS_INJ_VLEN);
		}
	}
	return NULL;
}

/* "1-3,5" -> readers[] */
static int rfs_inj_parse_cpus(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int a, b;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (sscanf(tok, "%d-%d", &a, &b) != 2)
			b = a = atoi(tok);
		for (; a <= b && nreaders < RFS_INJ_MAX_CPUS; a++)
			readers[nreaders++].cpu = a;
	}
	free(copy);
	return nreaders ? 0 : -1;
}

/* Every online CPU but the injecting one. */
static int rfs_inj_default_readers(void)
{
	int n = sysconf(_SC_NPROCESSORS_CONF), c;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (c = 0; c < n && nreaders < RFS_INJ_MAX_CPUS; c++)
		if (c != opt.cpu && CPU_ISSET(c, &set))
			readers[nreaders++].cpu = c;
	return nreaders ? 0 : -1;
}

static int rfs_inj_sockets(void)
{
	struct sockaddr_in local = { .sin_family = AF_INET };
	struct sockaddr_in peer = { .sin_family = AF_INET };
	int i, fd;

	if (inet_pton(AF_INET, opt.dst, &local.sin_addr) != 1 ||
	    inet_pton(AF_INET, opt.src, &peer.sin_addr) != 1) {
		fprintf(stderr, "inject: can't parse address '%s' or '%s'\n",
			opt.dst, opt.src);
		return -1;
	}
	peer.sin_port = htons(opt.rport);
	for (i = 0; i < opt.socks; i++) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		local.sin_port = htons(opt.port0 + i);
		if (fd < 0 || bind(fd, (void *)&local, sizeof(local)) ||
		    (!opt.unconnected &&
		     connect(fd, (void *)&peer, sizeof(peer)))) {
			fprintf(stderr, "inject: can't bind socket '%s:%u': %s\n",
				opt.dst, opt.port0 + i, strerror(errno));
			return -1;
		}
		/* SO_RCVBUFFORCE: root may go past rmem_max */
		if (opt.rcvbuf &&
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &opt.rcvbuf,
			       sizeof(opt.rcvbuf))) {
			fprintf(stderr, "inject: can't set SO_RCVBUFFORCE '%d': %s\n",
				opt.rcvbuf, strerror(errno));
			return -1;
		}
		socks[i] = fd;
	}
	return 0;
}

static int rfs_inj_start_readers(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i, e;

	for (i = 0; i < nreaders; i++) {
		readers[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (readers[i].epfd < 0)
			return -1;
	}
	for (i = 0; i < opt.socks; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(readers[i % nreaders].epfd, EPOLL_CTL_ADD,
			      socks[i], &ev))
			return -1;
	}
	for (i = 0; i < nreaders; i++) {
		e = pthread_create(&readers[i].tid, NULL, rfs_inj_read, &readers[i]);
		if (!e)
			e = rfs_inj_pin(readers[i].tid, readers[i].cpu);
		if (e) {
			fprintf(stderr, "inject: can't start reader 'cpu %d': %s\n",
				readers[i].cpu, strerror(e));
			return -1;
		}
	}
	return 0;
}

static __u16 rfs_inj_csum(const __u8 *p, size_t len)
{
	__u32 s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (p[i] << 8) | p[i + 1];
	if (len & 1)
		s += p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static void rfs_inj_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Ethernet to IF's MAC, IPv4 src -> dst, UDP rport -> port0; 0 or -1. */
static int rfs_inj_frame(__u8 *f, size_t *len)
{
	static const __u8 src_mac[6] = { 0x02, 0x52, 0x46, 0x53, 0x49, 0x4a };
	char path[128];
	unsigned int m[6];
	__u8 *ip = f + 14, *udp = ip + 20;
	size_t l4 = 8 + opt.payload;
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", opt.ifname);
	fp = fopen(path, "r");
	if (!fp || fscanf(fp, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			  &m[4], &m[5]) != 6) {
		fprintf(stderr, "inject: can't read MAC of '%s'\n", opt.ifname);
		if (fp)
			fclose(fp);
		return -1;
	}
	fclose(fp);
	memset(f, 0, 14 + 20 + l4);
	for (i = 0; i < 6; i++)
		f[i] = m[i];
	memcpy(f + 6, src_mac, 6);
	rfs_inj_put16(f + 12, 0x0800);
	ip[0] = 0x45;
	rfs_inj_put16(ip + 2, 20 + l4);
	rfs_inj_put16(ip + 6, 0x4000);	/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, opt.src, ip + 12);
	inet_pton(AF_INET, opt.dst, ip + 16);
	rfs_inj_put16(ip + 10, rfs_inj_csum(ip, 20));
	rfs_inj_put16(udp, opt.rport);
	rfs_inj_put16(udp + 2, opt.port0);
	rfs_inj_put16(udp + 4, l4);
	memset(udp + 8, 'x', opt.payload);
	*len = 14 + 20 + l4;
	return 0;
}

/* Counters read before and after the window. */
struct rfs_inj_snap {
	unsigned long long delivered;
	unsigned long long rcvbuf, noports, inerrors;
	unsigned long long processed[RFS_INJ_MAX_CPUS], dropped;
	unsigned long long enqueue_drops, early_drops;
	double t;
};

/* Udp: RcvbufErrors, NoPorts, InErrors of this namespace. */
static void rfs_inj_snmp(struct rfs_inj_snap *s)
{
	char hdr[1024], val[1024], *h, *v, *hs = NULL, *vs = NULL;
	FILE *f = fopen("/proc/net/snmp", "r");

	if (!f)
		return;
	while (fgets(hdr, sizeof(hdr), f)) {
		if (strncmp(hdr, "Udp:", 4) || !fgets(val, sizeof(val), f))
			continue;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(val, " \n", &vs);
		while ((h = strtok_r(NULL, " \n", &hs)) &&
		       (v = strtok_r(NULL, " \n", &vs))) {
			if (!strcmp(h, "RcvbufErrors"))
				s->rcvbuf = strtoull(v, NULL, 10);
			else if (!strcmp(h, "NoPorts"))
				s->noports = strtoull(v, NULL, 10);
			else if (!strcmp(h, "InErrors"))
				s->inerrors = strtoull(v, NULL, 10);
		}
		break;
	}
	fclose(f);
}

/* softnet_stat: per CPU, column 1 (processed: skbs the stack took in on
 * that CPU, __netif_receive_skb_core) and 2 (backlog drops); the CPU is
 * column 13 where the kernel prints it, else the line number. */
static void rfs_inj_softnet(struct rfs_inj_snap *s)
{
	unsigned int c[13];
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "r");
	int i = 0, n, cpu;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%x %x %x %x %x %x %x %x %x %x %x %x %x",
			   &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
			   &c[7], &c[8], &c[9], &c[10], &c[11], &c[12]);
		cpu = n >= 13 ? (int)c[12] : i;
		if (n >= 2 && cpu < RFS_INJ_MAX_CPUS) {
			s->processed[cpu] = c[0];
			s->dropped += c[1];
		}
		i++;
	}
	fclose(f);
}

static int gstats_fd = -1, ifstats_fd = -1;

/* A pinned map of rfsd's, if asked for; -1 (said why) when it can't. */
static int rfs_inj_open_map(const char *pin, int *fd)
{
	if (!pin)
		return 0;
	*fd = bpf_obj_get(pin);
	if (*fd >= 0)
		return 0;
	fprintf(stderr, "inject: can't open map '%s': %s\n", pin,
		strerror(errno));
	return -1;
}

/* One u64 counter of rfsd's per-CPU stats map fd, summed over the CPUs:
 * values of vsize bytes, the counter at off; 0 without the map. */
static unsigned long long rfs_inj_percpu_sum(int fd, size_t vsize, size_t off)
{
	int n = libbpf_num_possible_cpus(), i, zero = 0;
	unsigned long long sum = 0;
	char *v;

	if (fd < 0 || n <= 0)
		return 0;
	v = calloc(n, vsize);
	if (v && !bpf_map_lookup_elem(fd, &zero, v))
		for (i = 0; i < n; i++)
			sum += *(__u64 *)(v + i * vsize + off);
	free(v);
	return sum;
}

static void rfs_inj_snapshot(struct rfs_inj_snap *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < nreaders; i++)
		s->delivered += __atomic_load_n(&readers[i].total, __ATOMIC_RELAXED);
	rfs_inj_snmp(s);
	rfs_inj_softnet(s);
	s->enqueue_drops = rfs_inj_percpu_sum(gstats_fd,
		sizeof(struct rfs_global_stats),
		offsetof(struct rfs_global_stats, enqueue_drops));
	/* at the RX CPU and on the targets */
	s->early_drops = rfs_inj_percpu_sum(ifstats_fd,
		sizeof(struct rfs_if_stats),
		offsetof(struct rfs_if_stats, early_drop)) +
		rfs_inj_percpu_sum(gstats_fd, sizeof(struct rfs_global_stats),
		offsetof(struct rfs_global_stats, early_drop_target));
	s->t = rfs_inj_now();
}

/* Inject for secs seconds at rate frames a second at most (0: as fast as
 * it can), starting after delay seconds: frames injected, kernel ns
 * summed over them. */
static int rfs_inj_run(int fd, const __u8 *frame, size_t len, double secs,
		       double rate, double delay, unsigned long long *frames,
		       double *kns)
{
	struct xdp_md ctx = {
		.data_end = len,
		.ingress_ifindex = if_nametoindex(opt.ifname),
	};
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = frame,
		.data_size_in = len,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = opt.repeat,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
	);
	double t0, t, ahead;

	*frames = 0;
	*kns = 0;
	if (delay > 0)
		rfs_inj_sleep(delay);
	t0 = rfs_inj_now();
	do {
		o.duration = 0;
		if (bpf_prog_test_run_opts(fd, &o)) {
			fprintf(stderr, "inject: can't test-run 'rfs_inject': %s\n",
				strerror(errno));
			return -1;
		}
		*frames += o.repeat;
		*kns += (double)o.duration * o.repeat;
		t = rfs_inj_now();
		/* paced: never ahead of the rate, also at the end (a last
		 * run sent early would raise the rate of the whole window) */
		ahead = rate > 0 ? *frames / rate - (t - t0) : 0;
		if (ahead > 0) {
			if (t + ahead - t0 >= secs)
				break;
			rfs_inj_sleep(ahead);
			t = rfs_inj_now();
		}
	} while (t - t0 < secs && !stop);
	return 0;
}

/* One injecting thread of rfs_inj_many(). */
struct rfs_inj_thread {
	pthread_t tid;
	int fd, err;
	const __u8 *frame;
	size_t len;
	double secs, rate, delay, kns;
	unsigned long long frames;
};

static void *rfs_inj_thread(void *arg)
{
	struct rfs_inj_thread *t = arg;

	t->err = rfs_inj_run(t->fd, t->frame, t->len, t->secs, t->rate,
			     t->delay, &t->frames, &t->kns);
	return NULL;
}

/* rfs_inj_run() in --threads threads on --cpu, the rate shared among
 * them: while one sleeps after its run, another injects.  Paced, thread
 * i starts i runs' time (--repeat frames at --rate) after the first, so
 * that their runs take turns instead of arriving together (one burst of
 * --threads runs would overflow the sockets at a rate they otherwise
 * keep up with).  The window: from the first start to the last end. */
static int rfs_inj_many(int fd, const __u8 *frame, size_t len, double secs,
			unsigned long long *frames, double *kns, double *wall)
{
	struct rfs_inj_thread t[RFS_INJ_MAX_THREADS] = {};
	double t0 = rfs_inj_now();
	int i, n = 0, e, rc = 0;

	for (i = 0; i < opt.threads; i++) {
		t[i] = (struct rfs_inj_thread){ .fd = fd, .frame = frame,
			.len = len, .secs = secs, .rate = opt.rate / opt.threads,
			.delay = opt.rate > 0 ? i * opt.repeat / opt.rate : 0 };
		e = pthread_create(&t[i].tid, NULL, rfs_inj_thread, &t[i]);
		if (!e)
			e = rfs_inj_pin(t[i].tid, opt.cpu);
		if (e) {
			fprintf(stderr, "inject: can't start an injecting thread on 'cpu %d': %s\n",
				opt.cpu, strerror(e));
			stop = 1;
			rc = -1;
			if (t[i].tid)
				n++;
			break;
		}
		n++;
	}
	*frames = 0;
	*kns = 0;
	*wall = 0;
	for (i = 0; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		rc = rc ?: t[i].err;
		*frames += t[i].frames;
		*kns += t[i].kns;
	}
	*wall = rfs_inj_now() - t0;
	return rc;
}

static void rfs_inj_usage(FILE *f)
{
	fprintf(f,
		"Usage: inject --ifname IF --src ADDR --dst ADDR [options]\n"
		"Inject UDP frames for connected sockets on one CPU, as a NIC RX\n"
		"queue would (BPF_PROG_TEST_RUN, live frames); readers on the other\n"
		"CPUs count what is delivered (root).\n"
		"\n"
		"  --socks N        connected UDP sockets, one flow each (default 64)\n"
		"  --port0 P        their local ports P..P+N-1 on --dst (default 40000)\n"
		"  --rport P        the peer port they connect to (default 39999)\n"
		"  --unconnected    bound only, as a DNS server's: no flow to learn\n"
		"                   from the socket (still one flow each)\n"
		"  --cpu C          the injecting CPU (default 0)\n"
		"  --readers LIST   reader CPUs (default: every other CPU)\n"
		"  --warmup S       seconds of traffic before measuring (default 1)\n"
		"  --secs S         seconds measured (default 3)\n"
		"  --repeat N       frames per test run (default 4096)\n"
		"  --threads N      injecting threads, all on --cpu (default 1)\n"
		"  --payload N      UDP payload bytes (default 18: 60-byte frames)\n"
		"  --rate PPS       frames a second at most (default: as fast as it can)\n"
		"  --rcvbuf BYTES   each socket's SO_RCVBUF (default: the host's)\n"
		"  --prog PIN       program under test (default: XDP_PASS)\n"
		"  --gstats PIN     rfsd's pinned rfs_gstats (cpumap ring drops)\n"
		"  --ifstats PIN    rfsd's pinned rfs_if_stats of IF (early drops)\n");
}

static int rfs_inj_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "socks", required_argument, NULL, 'n' },
		{ "port0", required_argument, NULL, 'p' },
		{ "rport", required_argument, NULL, 'r' },
		{ "unconnected", no_argument, NULL, 'u' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "readers", required_argument, NULL, 'R' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "secs", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'x' },
		{ "threads", required_argument, NULL, 'T' },
		{ "payload", required_argument, NULL, 'l' },
		{ "rate", required_argument, NULL, 'a' },
		{ "rcvbuf", required_argument, NULL, 'b' },
		{ "prog", required_argument, NULL, 'P' },
		{ "gstats", required_argument, NULL, 'g' },
		{ "ifstats", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'i': opt.ifname = optarg; break;
		case 's': opt.src = optarg; break;
		case 'd': opt.dst = optarg; break;
		case 'n': opt.socks = atoi(optarg); break;
		case 'p': opt.port0 = atoi(optarg); break;
		case 'r': opt.rport = atoi(optarg); break;
		case 'u': opt.unconnected = 1; break;
		case 'c': opt.cpu = atoi(optarg); break;
		case 'R': opt.readers = optarg; break;
		case 'w': opt.warmup = atof(optarg); break;
		case 't': opt.secs = atof(optarg); break;
		case 'x': opt.repeat = atoi(optarg); break;
		case 'T': opt.threads = atoi(optarg); break;
		case 'l': opt.payload = atoi(optarg); break;
		case 'a': opt.rate = atof(optarg); break;
		case 'b': opt.rcvbuf = atoi(optarg); break;
		case 'P': opt.prog_pin = optarg; break;
		case 'g': opt.gstats_pin = optarg; break;
		case 'I': opt.ifstats_pin = optarg; break;
		case 'h': rfs_inj_usage(stdout); exit(0);
		default: rfs_inj_usage(stderr); return -1;
		}
	}
	if (!opt.ifname || !opt.src || !opt.dst || opt.socks < 1 ||
	    opt.socks > RFS_INJ_MAX_SOCKS || opt.port0 + opt.socks > 65536 ||
	    opt.payload < 0 || opt.payload > 1400 || opt.repeat < 1 ||
	    opt.threads < 1 || opt.threads > RFS_INJ_MAX_THREADS ||
	    opt.secs <= 0 || opt.rate < 0 || opt.rcvbuf < 0 || opt.cpu < 0 ||
	    opt.cpu >= RFS_INJ_MAX_CPUS) {
		rfs_inj_usage(stderr);
		return -1;
	}
	return 0;
}

static void rfs_inj_on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct rfs_inj_snap a, b;
	unsigned long long frames, got = 0, on_readers = 0, all = 0, known;
	struct rfs_inject *skel = NULL;
	static unsigned long long before[RFS_INJ_MAX_SOCKS];
	double kns, wall;
	int i, e, target, zero = 0, fed = 0, rc = EXIT_FAILURE;
	size_t len;
	__u8 frame[1500];

	if (rfs_inj_args(argc, argv))
		return EXIT_FAILURE;
	if (geteuid()) {
		fprintf(stderr, "inject: needs root (BPF_PROG_TEST_RUN)\n");
		return RFS_INJ_SKIP;
	}
	if (opt.readers ? rfs_inj_parse_cpus(opt.readers) :
			  rfs_inj_default_readers()) {
		fprintf(stderr, "inject: no reader CPU besides cpu %d\n", opt.cpu);
		return RFS_INJ_SKIP;
	}
	signal(SIGINT, rfs_inj_on_signal);
	signal(SIGTERM, rfs_inj_on_signal);
	if (rfs_inj_frame(frame, &len) || rfs_inj_sockets())
		return EXIT_FAILURE;

	skel = rfs_inject__open();
	if (!skel) {
		fprintf(stderr, "inject: can't open program 'rfs_inject': %s\n",
			strerror(errno));
		return EXIT_FAILURE;
	}
	skel->rodata->rfs_inj_flows = opt.socks;
	skel->rodata->rfs_inj_port0 = opt.port0;
	e = rfs_inject__load(skel);
	if (e) {
		fprintf(stderr, "inject: can't load program 'rfs_inject': %s\n",
			strerror(-e));
		goto out;
	}
	target = opt.prog_pin ? bpf_obj_get(opt.prog_pin) :
				bpf_program__fd(skel->progs.rfs_inject_pass);
	if (target < 0) {
		fprintf(stderr, "inject: can't open program '%s': %s\n",
			opt.prog_pin, strerror(errno));
		goto out;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.rfs_inject_next), &zero,
				&target, BPF_ANY)) {
		fprintf(stderr, "inject: can't put program '%s' behind 'rfs_inject': %s\n",
			opt.prog_pin ?: "rfs_inject_pass", strerror(errno));
		goto out;
	}
	if (rfs_inj_open_map(opt.gstats_pin, &gstats_fd) ||
	    rfs_inj_open_map(opt.ifstats_pin, &ifstats_fd))
		goto out;
	if (rfs_inj_start_readers())
		goto out;
	/* the injecting thread: on --cpu, as a NIC's IRQ would be */
	e = rfs_inj_pin(pthread_self(), opt.cpu);
	if (e) {
		fprintf(stderr, "inject: can't move to 'cpu %d': %s\n", opt.cpu,
			strerror(e));
		goto out_readers;
	}
	if (opt.warmup > 0 &&
	    rfs_inj_many(bpf_program__fd(skel->progs.rfs_inject), frame, len,
			 opt.warmup, &frames, &kns, &wall))
		goto out_readers;
	rfs_inj_sleep(0.2);	/* let the warm-up drain */
	rfs_inj_snapshot(&a);
	for (i = 0; i < opt.socks; i++)
		before[i] = __atomic_load_n(&sock_count[i], __ATOMIC_RELAXED);
	if (rfs_inj_many(bpf_program__fd(skel->progs.rfs_inject), frame, len,
			 opt.secs, &frames, &kns, &wall))
		goto out_readers;
	rfs_inj_sleep(0.2);	/* in flight at the end: still counted */
	rfs_inj_snapshot(&b);
	for (i = 0; i < opt.socks; i++)
		fed += __atomic_load_n(&sock_count[i], __ATOMIC_RELAXED) > before[i];
	got = b.delivered - a.delivered;
	for (i = 0; i < RFS_INJ_MAX_CPUS; i++) {
		unsigned long long d = b.processed[i] - a.processed[i];

		all += d;
		if (i != opt.cpu)
			on_readers += d;
	}
	printf("secs %.3f\n", wall);
	printf("injected %llu\n", frames);
	printf("injected_pps %.0f\n", frames / wall);
	printf("delivered %llu\n", got);
	printf("delivered_pps %.0f\n", got / wall);
	printf("ns_per_frame %.1f\n", kns / frames);
	printf("wall_ns_per_frame %.1f\n", wall * 1e9 / frames);
	printf("drops_rcvbuf %llu\n", b.rcvbuf - a.rcvbuf);
	printf("drops_backlog %llu\n", b.dropped - a.dropped);
	printf("drops_cpumap %llu\n", b.enqueue_drops - a.enqueue_drops);
	printf("drops_noport %llu\n", b.noports - a.noports);
	printf("drops_early %llu\n", b.early_drops - a.early_drops);
	printf("drops_total %lld\n", (long long)(frames - got));
	/* lost where none of the above counts: the test run itself (an skb
	 * not allocated), an aborted verdict; host-wide counters can make
	 * the sum of the others exceed the loss, hence the floor at 0 */
	known = (b.rcvbuf - a.rcvbuf) + (b.dropped - a.dropped) +
		(b.enqueue_drops - a.enqueue_drops) + (b.noports - a.noports) +
		(b.early_drops - a.early_drops);
	printf("drops_other %llu\n", frames - got > known ? frames - got - known : 0);
	printf("socks_fed_pct %.1f\n", 100.0 * fed / opt.socks);
	/* where the stack ran: host-wide, so others' traffic is in it */
	printf("stack_off_rx_cpu_pct %.1f\n", all ? 100.0 * on_readers / all : 0);
	rc = EXIT_SUCCESS;
out_readers:
	stop = 1;
	for (i = 0; i < nreaders; i++)
		if (readers[i].tid)
			pthread_join(readers[i].tid, NULL);
out:
	rfs_inject__destroy(skel);
	return rc;
}
