// SPDX-License-Identifier: GPL-2.0
/*
 * bench/cost: what steering costs per frame.  BPF_PROG_TEST_RUN of two XDP
 * programs on the same IPv4 TCP frame, repeat times in the kernel per run:
 *
 *   bare_redirect  bench/bare_redirect.bpf.c: bpf_redirect_map() into a
 *                  cpumap, nothing else (the floor)
 *   rfs_xdp        the real program, loaded by the datapath library exactly
 *                  as rfsd loads it (rfs_if_attach with no_attach), with a
 *                  desired CPU recorded for the frame's flow
 *
 * in two test-run modes:
 *
 *   prog   plain test run, what tests/prog/test_xdp prints: the verdict is
 *          returned and nothing is enqueued, so this is the program alone.
 *          For the bare program that is little more than the run loop and
 *          one helper call: a floor, not a redirect.  The repeats share
 *          one buffer, on which rfs_xdp's metadata would pile up until
 *          the headroom is gone (then it passes frames instead of steering
 *          them), so both programs run behind rfs_rearm (tests/prog/bpf/
 *          rearm.bpf.c: drop the metadata, tail-call the program); what
 *          rfs_rearm costs by itself is printed as rearm_ns.
 *   live   BPF_F_TEST_XDP_LIVE_FRAMES: each verdict is carried out, like
 *          a driver's NAPI poll (batches of 64, xdp_do_redirect, bulk
 *          queue, flush into the target's ring).  The producer side of a
 *          real cpumap redirect is then in both numbers.  The frames go up
 *          the stack on loopback in the target's kthread and are dropped
 *          there (their MAC is nobody's); a full ring drops them earlier.
 *          So this number depends on the target CPU keeping up: while
 *          it lags (busy with something else), frames are dropped at
 *          the flush, which costs the producer less.  rfs_xdp's ring
 *          drops are counted (drops_pct, from rfs_gstats.enqueue_drops)
 *          and the rest must reach the target's cpumap program
 *          (rfs_cpu_queues[target].dequeued) before the next run; the
 *          bare program's are not counted.
 *
 * Every rfs_xdp run must have steered every frame to the target: its
 * interface's steered count moves by repeat, and rfs_if_stats counts no
 * frame passed for want of metadata room.  The flow stays where its
 * application is, so its frames go bare (include/rfs_order.h, LAZY
 * MARKS) and take no sequence numbers.
 *
 * Both programs send the frame to the same CPU (the last one on 2 CPUs),
 * and the runner is pinned to another: a target on the runner's own CPU
 * could not drain until the run ends.  Runs alternate the order (bare
 * first on even runs) so a noisy neighbour hits both alike; the ratio is
 * taken per run, then summarised as median and min-max.
 *
 * The kernel reports whole ns per frame: at 6 ns (bare, prog mode) that
 * is up to 15 % of truncation, so the ratio from the wall clock around
 * each run is printed too (finer, but with the call's fixed cost spread
 * over the repeats and any preemption in it).
 *
 *   cost [--runs N] [--repeat N] [--cpu CPU] [--pin-dir DIR]
 *   cost --attach IFACE [--target CPU] [--pin PATH]
 *
 * Output: "run" lines, then "summary" lines, all "key value" pairs, for
 * bench/run.sh.  Exit 77: could not run here.
 *
 * --attach is the bench's "cpumap" mode: the bare program attached in
 * native mode to IFACE, every frame to CPU --target (default 0), until
 * SIGTERM or SIGINT, then detached.  It tells the cost of the cpumap path
 * itself (kthread, skb built there) apart from what rfs_xdp adds to it.
 * --pin also pins the program at PATH (bpffs; removed on exit), for a
 * loader that runs it itself: bench/nic.sh's cpumap mode, whose injector
 * tail-calls it as it does rfsd's rfs_xdp.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <netinet/in.h>

#include "frames.h"
#include "rfs_decide.h"
#include "log.h"
#include "rfs_dp.h"
#include "rfs_test_util.h"
#include "bench/bare_redirect.skel.h"
#include "tests/bpf/rearm.skel.h"

#define RFS_COST_RUNS_MAX	101
#define RFS_COST_SKIP		77

static struct {
	struct rfs_dp *dp;
	struct rfs_if *ifc;
	struct rfs_bare *bare;
	struct rfs_test_rearm *rearm;
	int ncpus;
	int attached_ifindex;	/* --attach: detach from here on exit */
	const char *prog_pin;	/* --pin: unpinned on exit */
	char pin_dir[128];
} rc;

static void rfs_cost_cleanup(void)
{
	if (rc.dp) {
		rfs_dp_close(rc.dp, true);	/* detaches and unpins all */
		rc.dp = NULL;
		rc.ifc = NULL;
	}
	if (rc.attached_ifindex) {
		LIBBPF_OPTS(bpf_xdp_attach_opts, o,
			    .old_prog_fd = bpf_program__fd(rc.bare->progs.rfs_bare_redirect));

		/* only if it is still ours: never another program */
		bpf_xdp_detach(rc.attached_ifindex, XDP_FLAGS_DRV_MODE |
			       XDP_FLAGS_REPLACE, &o);
		rc.attached_ifindex = 0;
	}
	if (rc.prog_pin) {
		unlink(rc.prog_pin);
		rc.prog_pin = NULL;
	}
	if (rc.bare) {
		rfs_bare__destroy(rc.bare);
		rc.bare = NULL;
	}
	if (rc.rearm) {
		rfs_test_rearm__destroy(rc.rearm);
		rc.rearm = NULL;
	}
}

static void rfs_cost_on_signal(int sig)
{
	rfs_cost_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static double rfs_cost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One test run of repeat frames: kernel ns/frame in *kns, wall clock
 * ns/frame in *wns.  0 or a negative errno. */
static int rfs_cost_run(int prog_fd, __u32 flags, const __u8 *frame,
			size_t len, __u32 repeat, __u32 *kns, double *wns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	double t0;

	o.data_in = frame;
	o.data_size_in = len;
	o.repeat = repeat;
	o.flags = flags;
	t0 = rfs_cost_now();
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	*wns = (rfs_cost_now() - t0) / repeat;
	/* live frames return no verdict: the sequence check covers them */
	if (!(flags & BPF_F_TEST_XDP_LIVE_FRAMES) && o.retval != XDP_REDIRECT) {
		fprintf(stderr, "cost: verdict %u, not XDP_REDIRECT (%u)\n",
			o.retval, XDP_REDIRECT);
		return -EINVAL;
	}
	*kns = o.duration;
	return 0;
}

static int rfs_cost_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of v[0..n) (sorted in place). */
static void rfs_cost_stats(double *v, int n, double *med, double *min,
			   double *max)
{
	qsort(v, n, sizeof(*v), rfs_cost_cmp);
	*min = v[0];
	*max = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void rfs_cost_usage(FILE *f)
{
	fprintf(f,
		"Usage: cost [--runs N] [--repeat N] [--cpu CPU] [--pin-dir DIR]\n"
		"Per-frame cost of rfs_xdp against a bare cpumap redirect\n"
		"(BPF_PROG_TEST_RUN, same IPv4 TCP frame; root).\n"
		"\n"
		"  --runs N      runs of each program, order alternated (default 7)\n"
		"  --repeat N    frames per run (default 1000000)\n"
		"  --cpu CPU     CPU the runs execute on (default 0)\n"
		"  --pin-dir DIR bpffs dir of the throwaway datapath\n"
		"                (default /sys/fs/bpf/rfs-bench-cost-PID)\n"
		"\n"
		"       cost --attach IFACE [--target CPU] [--pin PATH]\n"
		"Attach the bare redirect (native XDP) to IFACE, every frame to\n"
		"CPU --target (default 0), until SIGTERM; then detach.  --pin:\n"
		"the program pinned at PATH too (bpffs), unpinned on exit.\n");
}

/* Load the bare program, redirecting to target, with that CPU's cpumap
 * entry in place (the ring as deep as rfsd's). */
static int rfs_cost_load_bare(__u32 target)
{
	struct bpf_cpumap_val v = { .qsize = RFS_CPUMAP_QSIZE };
	int e;

	rc.bare = rfs_bare__open();
	if (!rc.bare) {
		fprintf(stderr, "cost: can't open program 'rfs_bare_redirect': %s\n",
			strerror(errno));
		return -1;
	}
	rc.bare->rodata->rfs_bare_cpu = target;
	e = bpf_map__set_max_entries(rc.bare->maps.rfs_bare_cpumap, target + 1) ?:
	    rfs_bare__load(rc.bare);
	if (e) {
		fprintf(stderr, "cost: can't load program 'rfs_bare_redirect': %s\n",
			strerror(-e));
		return -1;
	}
	if (bpf_map_update_elem(bpf_map__fd(rc.bare->maps.rfs_bare_cpumap),
				&target, &v, BPF_ANY)) {
		fprintf(stderr, "cost: can't create cpumap entry 'cpu %u': %s\n",
			target, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What rfs_xdp did with the frames of a run, from the datapath's own
 * counters: the frames it redirected into the cpumap (the only flow is
 * the frame's, wanted on the target), frames it passed for want of
 * metadata room, frames the target's ring had no room for (counted on
 * the RX CPU by the enqueue tracepoint), and frames the target's cpumap
 * program ran on.
 */
struct rfs_cost_count {
	__u64 steered;
	__u64 no_meta;
	__u64 enqueue_drops;
	__u64 dequeued;
};

static int rfs_cost_count(__u32 target, struct rfs_cost_count *c)
{
	struct rfs_global_stats *gs = calloc(rc.ncpus, sizeof(*gs));
	struct rfs_if_stats *st = calloc(rc.ncpus, sizeof(*st));
	struct rfs_cpu_queue q = {};
	int e = -ENOMEM, i;

	memset(c, 0, sizeof(*c));
	if (!gs || !st)
		goto out;
	e = rfs_dp_read_gstats(rc.dp, gs) ?:
	    rfs_if_read_stats(rc.ifc, st);
	if (!e && bpf_map_lookup_elem(rc.dp->cpu_queues_fd, &target, &q))
		e = -errno;
	if (e)
		goto out;
	c->dequeued = q.dequeued;
	for (i = 0; i < rc.ncpus; i++) {
		c->steered += st[i].steered;
		c->no_meta += st[i].no_meta;
		c->enqueue_drops += gs[i].enqueue_drops;
	}
out:
	free(gs);
	free(st);
	return e;
}

/* Live frames: wait for target's kthread to have taken every frame of the
 * run that the ring did not drop.  0, or -ETIMEDOUT. */
static int rfs_cost_drain(__u32 target,
			  const struct rfs_cost_count *c0, __u32 repeat,
			  struct rfs_cost_count *c1)
{
	struct timespec ts = { 0, 10 * 1000000L };
	int i, e;

	for (i = 0; i < 1000; i++) {
		e = rfs_cost_count(target, c1);
		if (e)
			return e;
		if (c1->dequeued - c0->dequeued +
		    c1->enqueue_drops - c0->enqueue_drops >= repeat)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/* rfs_rearm, tail-calling nothing yet (rfs_cost_behind sets it). */
static int rfs_cost_load_rearm(void)
{
	rc.rearm = rfs_test_rearm__open_and_load();
	if (!rc.rearm) {
		fprintf(stderr, "cost: can't load program 'rfs_rearm': %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Put prog_fd behind rfs_rearm; rfs_rearm's fd to run. */
static int rfs_cost_behind(int prog_fd)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(rc.rearm->maps.rfs_rearm_next),
				&zero, &prog_fd, BPF_ANY)) {
		fprintf(stderr, "cost: can't put a program behind 'rfs_rearm': %s\n",
			strerror(errno));
		return -1;
	}
	return bpf_program__fd(rc.rearm->progs.rfs_rearm);
}

/* The real datapath under a pin dir of our own, one unattached interface,
 * and the frame's flow recorded as wanted on target. */
static int rfs_cost_load_rfs(const struct rfs_frame *f, __u32 target)
{
	struct rfs_if_opts io = { .no_attach = true, .rx_queues = 1 };
	char err[RFS_ERR_LEN] = "";
	struct rfs_flow_key k;
	rfs_sock_entry_t se;
	struct rfs_globals g;
	__u32 zero = 0, hash, idx;

	/* sockops on the cgroup v2 mount, wherever it is (hybrid hosts) */
	if (rfs_tu_dp_open(&rc.dp, rc.pin_dir, RFS_TRACE_AUTO,
			   RFS_SOCK_FLOW_DEFAULT, err)) {
		fprintf(stderr, "cost: can't open datapath '%s': %s\n",
			rc.pin_dir, err);
		return -1;
	}
	if (rfs_if_attach(rc.dp, "cost0", &io, &rc.ifc, err)) {
		fprintf(stderr, "cost: can't load interface 'cost0': %s\n", err);
		return -1;
	}
	if (bpf_map_lookup_elem(rc.dp->globals_fd, &zero, &g)) {
		fprintf(stderr, "cost: can't read map '%s': %s\n",
			RFS_MAP_GLOBALS, strerror(errno));
		return -1;
	}
	rfs_frame_key(f, &k);
	hash = rfs_flow_hash(&k, g.hash_seed);
	se = rfs_sock_entry_make(hash, target, g.cpu_mask);
	idx = rfs_sock_index(hash, g.sock_flow_mask);
	if (bpf_map_update_elem(rc.dp->sock_flows_fd, &idx, &se, BPF_ANY) ||
	    rfs_dp_desired_cpu(rc.dp, hash) != target) {
		fprintf(stderr, "cost: can't record desired cpu %u for the flow\n",
			target);
		return -1;
	}
	return 0;
}

/* --attach: the bare program on ifname (and at pin, if given) until a
 * signal; 0 or exit code */
static int rfs_cost_attach(const char *ifname, __u32 target, const char *pin)
{
	int ifindex = if_nametoindex(ifname), e;
	sigset_t set;

	if (!ifindex) {
		fprintf(stderr, "cost: can't find interface '%s': %s\n", ifname,
			strerror(errno));
		return EXIT_FAILURE;
	}
	if (rfs_cost_load_bare(target))
		return EXIT_FAILURE;
	/* take the signals synchronously: cleanup runs in main, not in a
	 * handler racing the attach */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	e = bpf_xdp_attach(ifindex,
			   bpf_program__fd(rc.bare->progs.rfs_bare_redirect),
			   XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (e) {
		fprintf(stderr, "cost: can't attach XDP program on iface '%s': %s (%d)\n",
			ifname, strerror(-e), e);
		return EXIT_FAILURE;
	}
	rc.attached_ifindex = ifindex;
	if (pin) {
		e = bpf_program__pin(rc.bare->progs.rfs_bare_redirect, pin);
		if (e) {
			fprintf(stderr, "cost: can't pin program at '%s': %s\n",
				pin, strerror(-e));
			return EXIT_FAILURE;
		}
		rc.prog_pin = pin;
	}
	printf("attached %s target %u\n", ifname, target);
	fflush(stdout);
	sigwait(&set, &e);
	return 0;
}

static const struct rfs_cost_mode {
	const char *name;
	__u32 flags;
} rfs_cost_modes[] = {
	{ "prog", 0 },
	{ "live", BPF_F_TEST_XDP_LIVE_FRAMES },
};

/* runs of both programs in one mode; prints "run" and "summary" lines */
static int rfs_cost_mode(const struct rfs_cost_mode *m, int runs,
			 __u32 repeat, int cpu, __u32 target, const __u8 *buf,
			 size_t len)
{
	double kb[RFS_COST_RUNS_MAX], kr[RFS_COST_RUNS_MAX];
	double kratio[RFS_COST_RUNS_MAX], wratio[RFS_COST_RUNS_MAX];
	double kdelta[RFS_COST_RUNS_MAX], drops[RFS_COST_RUNS_MAX];
	double kfloor[RFS_COST_RUNS_MAX];
	int fds[2] = { bpf_program__fd(rc.bare->progs.rfs_bare_redirect),
		       rc.ifc->prog_fd };
	static const char *const names[2] = { "rfs_bare_redirect", "rfs_xdp" };
	bool live = m->flags & BPF_F_TEST_XDP_LIVE_FRAMES;
	double med, min, max;
	int i, j, e, fd;

	for (i = 0; i < runs; i++) {
		struct rfs_cost_count c0, c1;
		__u64 ring_drops = 0, dequeued = 0;
		__u32 k[2], kf = 0;
		double w[2], wf;

		/* prog mode: rfs_rearm's own cost, behind it rfs_rearm_nop */
		if (!live) {
			fd = rfs_cost_behind(bpf_program__fd(rc.rearm->progs.rfs_rearm_nop));
			if (fd < 0)
				return -1;
			e = rfs_cost_run(fd, 0, buf, len, repeat, &kf, &wf);
			if (e) {
				fprintf(stderr, "cost: can't test-run 'rfs_rearm' (%s): %s\n",
					m->name, strerror(-e));
				return -1;
			}
		}
		/* even runs: bare first; odd runs: rfs_xdp first */
		for (j = 0; j < 2; j++) {
			int p = i % 2 ? 1 - j : j;

			fd = live ? fds[p] : rfs_cost_behind(fds[p]);
			if (fd < 0)
				return -1;
			e = rfs_cost_count(target, &c0);
			if (!e)
				e = rfs_cost_run(fd, m->flags, buf, len, repeat,
						 &k[p], &w[p]);
			if (e) {
				fprintf(stderr, "cost: can't test-run '%s' (%s): %s\n",
					names[p], m->name, strerror(-e));
				return -1;
			}
			if (!p)
				continue;
			/* rfs_xdp must have steered every frame to target */
			e = live ? rfs_cost_drain(target, &c0, repeat, &c1) :
				   rfs_cost_count(target, &c1);
			if (e) {
				fprintf(stderr, "cost: rfs_xdp (%s): frames to cpu %u not accounted for: %s\n",
					m->name, target, strerror(-e));
				return -1;
			}
			if (c1.steered - c0.steered != repeat ||
			    c1.no_meta != c0.no_meta) {
				fprintf(stderr, "cost: rfs_xdp (%s) sent %llu of %u frames to cpu %u (%llu passed for want of metadata room)\n",
					m->name,
					(unsigned long long)(c1.steered - c0.steered),
					repeat, target,
					(unsigned long long)(c1.no_meta - c0.no_meta));
				return -1;
			}
			ring_drops = c1.enqueue_drops - c0.enqueue_drops;
			dequeued = c1.dequeued - c0.dequeued;
		}
		kb[i] = k[0];
		kr[i] = k[1];
		kfloor[i] = kf;
		kratio[i] = k[0] ? (double)k[1] / k[0] : 0;
		kdelta[i] = (double)k[1] - k[0];
		wratio[i] = w[1] / w[0];
		drops[i] = 100.0 * ring_drops / repeat;
		/* ring_drops: rfs_xdp's frames that found target's ring full
		 * (live only; the consumer is slower than the producer);
		 * dequeued: those the target's cpumap program ran on */
		printf("run %s %d bare_ns %u rfs_ns %u ratio %.3f wall_bare_ns %.2f wall_rfs_ns %.2f wall_ratio %.3f ring_drops %llu dequeued %llu",
		       m->name, i + 1, k[0], k[1], kratio[i], w[0], w[1],
		       wratio[i], (unsigned long long)ring_drops,
		       (unsigned long long)dequeued);
		if (!live)
			printf(" rearm_ns %u", kf);
		printf("\n");
	}
	rfs_cost_stats(kb, runs, &med, &min, &max);
	printf("summary %s bare_ns median %.1f min %.0f max %.0f\n", m->name,
	       med, min, max);
	rfs_cost_stats(kr, runs, &med, &min, &max);
	printf("summary %s rfs_ns median %.1f min %.0f max %.0f\n", m->name,
	       med, min, max);
	rfs_cost_stats(kratio, runs, &med, &min, &max);
	printf("summary %s ratio median %.3f min %.3f max %.3f\n", m->name,
	       med, min, max);
	rfs_cost_stats(kdelta, runs, &med, &min, &max);
	printf("summary %s delta_ns median %.1f min %.0f max %.0f\n", m->name,
	       med, min, max);
	rfs_cost_stats(wratio, runs, &med, &min, &max);
	printf("summary %s wall_ratio median %.3f min %.3f max %.3f\n",
	       m->name, med, min, max);
	rfs_cost_stats(drops, runs, &med, &min, &max);
	printf("summary %s drops_pct median %.1f min %.1f max %.1f\n",
	       m->name, med, min, max);
	if (!live) {
		rfs_cost_stats(kfloor, runs, &med, &min, &max);
		printf("summary %s rearm_ns median %.1f min %.0f max %.0f\n",
		       m->name, med, min, max);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "pin-dir", required_argument, NULL, 'P' },
		{ "attach", required_argument, NULL, 'a' },
		{ "target", required_argument, NULL, 't' },
		{ "pin", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int runs = 7, cpu = 0, ch, ret = EXIT_FAILURE, ncpus, att_target = 0;
	const char *attach = NULL, *pin = NULL;
	__u32 repeat = 1000000, target;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	cpu_set_t set;
	size_t m;

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'n':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'P':
			snprintf(rc.pin_dir, sizeof(rc.pin_dir), "%s", optarg);
			break;
		case 'a':
			attach = optarg;
			break;
		case 't':
			att_target = atoi(optarg);
			break;
		case 'p':
			pin = optarg;
			break;
		case 'h':
			rfs_cost_usage(stdout);
			return 0;
		default:
			rfs_cost_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || runs < 1 || runs > RFS_COST_RUNS_MAX || !repeat ||
	    (pin && !attach)) {
		rfs_cost_usage(stderr);
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "cost: needs root (BPF_PROG_TEST_RUN)\n");
		return RFS_COST_SKIP;
	}
	ncpus = libbpf_num_possible_cpus();
	rc.ncpus = ncpus;
	if (ncpus < 2) {
		fprintf(stderr, "cost: needs 2 CPUs, have %d\n", ncpus);
		return RFS_COST_SKIP;
	}
	if (cpu < 0 || cpu >= ncpus || att_target < 0 || att_target >= ncpus) {
		fprintf(stderr, "cost: no cpu %d\n",
			att_target < 0 || att_target >= ncpus ? att_target : cpu);
		return 2;
	}
	/* the frames go to another CPU than the runner's */
	target = cpu == ncpus - 1 ? 0 : ncpus - 1;
	if (!rc.pin_dir[0])
		snprintf(rc.pin_dir, sizeof(rc.pin_dir),
			 "/sys/fs/bpf/rfs-bench-cost-%d", (int)getpid());
	rfs_log_init("cost", getenv("V") != NULL);
	rfs_log_hook_libs();
	atexit(rfs_cost_cleanup);
	signal(SIGINT, rfs_cost_on_signal);
	signal(SIGTERM, rfs_cost_on_signal);
	signal(SIGHUP, rfs_cost_on_signal);
	signal(SIGPIPE, SIG_IGN);

	if (attach) {
		ret = rfs_cost_attach(attach, att_target, pin);
		rfs_cost_cleanup();
		return ret;
	}

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cost: can't move to cpu %d: %s\n", cpu,
			strerror(errno));
		return EXIT_FAILURE;
	}

	/* same frame shape as tests/prog/test_xdp.c test_cost, lab range */
	rfs_frame_v4(&f, IPPROTO_TCP, "198.18.0.2", 51000, "198.18.0.1", 80);
	rfs_frame_build(&f, buf, &lay);

	if (rfs_cost_load_bare(target) || rfs_cost_load_rfs(&f, target) ||
	    rfs_cost_load_rearm())
		goto out;

	printf("cost: repeat %u runs %d cpu %d target %u frame %zu\n", repeat,
	       runs, cpu, target, lay.len);
	for (m = 0; m < sizeof(rfs_cost_modes) / sizeof(rfs_cost_modes[0]); m++)
		if (rfs_cost_mode(&rfs_cost_modes[m], runs, repeat, cpu, target,
				  buf, lay.len))
			goto out;
	ret = 0;
out:
	rfs_cost_cleanup();
	return ret;
}
