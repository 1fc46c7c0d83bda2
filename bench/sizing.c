// SPDX-License-Identifier: GPL-2.0
/*
 * bench/sizing: how well xdp-rfs steers as flows outnumber its tables.
 * A simulation over the datapath's own decision
 * code, the headers rfs_xdp is built from, not copies of it:
 *
 *   rfs_flow_hash (rfs_hash.h)              each flow's hash
 *   rfs_sock_index, rfs_sock_entry_make,    the sock flow table: the
 *   rfs_sock_entry_cpu, rfs_sock_cpu_mask   socket side records, XDP reads
 *     (rfs_decide.h)
 *   rfs_dev_table_header, rfs_dev_index,    the dev flow table: where each
 *   rfs_record_remote (rfs_order.h)         flow's last frame went
 *   rfs_pick_cpu (rfs_decide.h)             the decision
 *
 * The model, per (flows, sock_flow_entries, flow_cnt, cpus): each flow has
 * an application reading it on one CPU, drawn at random.  Frames arrive
 * for flows drawn at random (one RX queue, on a CPU of its own hash, as
 * RSS would); for each, the XDP side looks up the sock and dev entries
 * and picks a CPU with rfs_pick_cpu(), then the application reads the
 * frame and records its CPU in the sock table (rfs_sock.bpf.h does so at
 * every recv).  A path counts as drained (rfs_order.h) once --lag frames
 * have passed since the last frame written to its dev entry, a stand-in
 * for a target's ring and GRO flush.  Warm-up first, not counted: one
 * frame per flow in turn, then at random up to twice the flows (at least
 * 64 Ki frames in all; the measured frames too).
 *
 * Rows for $OUT/results.tsv (bench/README.md "Results"), workload sizing,
 * mode sim, round 0, param flows=F,sock=S,devtab=D,cpus=C:
 *
 *   accuracy_pct        frames sent to the flow's application CPU
 *   collisions_pct      flows sharing their sock slot with another flow
 *   tag_miss_pct        frames whose sock slot held another flow's entry
 *                       (the tag tells: steered by hash instead)
 *   wrong_cpu_pct       frames whose slot held another flow's entry with
 *                       the same tag bits (steered to that flow's CPU)
 *   dev_collisions_pct  flows sharing their dev table entry
 *   held_pct            frames held on an old path (in-order rule)
 *   switches_pct        frames that moved their flow (or its entry)
 *
 *   sizing [--flows LIST] [--tables S:D,...] [--cpus N] [--frames K]
 *          [--lag L] [--seed N] [--stdout]
 *
 * LIST is comma-separated.  Rows go to $OUT/results.tsv (header written
 * if the file is new; OUT defaults to build/bench), or to stdout with
 * --stdout.  QUICK=1 in the environment: fewer flow counts and frames.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* rfs_hash.h asks clang to unroll; gcc does not know the pragma */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "rfs_hash.h"
#pragma GCC diagnostic pop
#include "rfs_decide.h"
#include "rfs_order.h"

#define RFS_SZ_MAX_LIST		32

static struct {
	__u32 flows[RFS_SZ_MAX_LIST];
	int nflows;
	__u32 sock[RFS_SZ_MAX_LIST], devtab[RFS_SZ_MAX_LIST];
	int ntables;
	__u32 cpus;
	__u32 frames;		/* per flow, after the warm-up */
	__u32 lag;
	__u64 seed;
	int to_stdout;
} opt = { .cpus = 8, .frames = 4, .lag = 128, .seed = 0x5eed };

static __u64 rng;

/* xorshift64*: reproducible, fast, good enough for picking flows */
static __u64 rfs_sz_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

struct rfs_sz_result {
	double accuracy, collisions, tag_miss, wrong_cpu, dev_collisions;
	double held, switches;
};

/* Flows sharing a slot with another flow, in percent: slot[i] of flow i. */
static double rfs_sz_shared(const __u32 *slot, __u32 n, __u32 nslots)
{
	__u32 *cnt = calloc(nslots, sizeof(*cnt)), i, shared = 0;

	if (!cnt)
		return -1;
	for (i = 0; i < n; i++)
		cnt[slot[i]]++;
	for (i = 0; i < n; i++)
		shared += cnt[slot[i]] > 1;
	free(cnt);
	return 100.0 * shared / n;
}

static int rfs_sz_run(__u32 nflows, __u32 sock_entries, __u32 flow_cnt,
		      struct rfs_sz_result *res)
{
	struct rfs_dev_flow hdr = rfs_dev_table_header(flow_cnt, 1);
	__u32 ndev = rfs_dev_table_entries(flow_cnt, 1);
	__u32 cpu_mask = rfs_sock_cpu_mask(opt.cpus);
	__u32 smask = sock_entries - 1, hash_seed;
	__u32 *hash = malloc(nflows * sizeof(*hash));
	__u16 *want = malloc(nflows * sizeof(*want));
	__u32 *slot = malloc(nflows * sizeof(*slot));
	rfs_sock_entry_t *sock = calloc(sock_entries, sizeof(*sock));
	struct rfs_dev_flow *dev = calloc(ndev, sizeof(*dev));
	__u64 *last = calloc(ndev, sizeof(*last));
	__u32 seq[RFS_MAX_CPUS] = { 0 };
	struct rfs_if_config cfg = { 0 };
	__u64 frames, n, good = 0, miss = 0, wrong = 0, held = 0, sw = 0;
	/* at least 64 Ki frames each way: small flow counts settle too */
	__u64 total = (__u64)nflows * opt.frames, warm = 2ull * nflows;
	int e = -ENOMEM;
	__u32 i, c;

	if (total < 65536)
		total = 65536;
	if (warm < 65536)
		warm = 65536;
	if (!hash || !want || !slot || !sock || !dev || !last)
		goto out;
	cfg.flow_mask = flow_cnt - 1;
	cfg.rx_queues = 1;
	cfg.n_allowed = opt.cpus;
	for (c = 0; c < opt.cpus; c++) {
		cfg.allowed_list[c] = c;
		cfg.allowed[c / 64] |= 1ull << (c % 64);
		cfg.usable[c / 64] |= 1ull << (c % 64);
		cfg.configured[c / 64] |= 1ull << (c % 64);
	}
	dev[0] = hdr;
	hash_seed = (__u32)rfs_sz_rand();
	for (i = 0; i < nflows; i++) {
		struct rfs_flow_key k = { 0 };
		__u64 r = rfs_sz_rand();

		/* 198.18.0.0/15 peers, a random port each, to one local
		 * address and port: a server's view */
		k.local[0] = htonl(0xc6120001);
		k.peer[0] = htonl(0xc6120000 | (__u32)(r & 0x1ffff));
		k.local_port = 443;
		k.peer_port = (__u16)(r >> 17) | 1024;
		k.proto = (r >> 40) & 1 ? IPPROTO_UDP : IPPROTO_TCP;
		hash[i] = rfs_flow_hash(&k, hash_seed);
		want[i] = rfs_sz_rand() % opt.cpus;
		slot[i] = rfs_sock_index(hash[i], smask);
	}
	res->collisions = rfs_sz_shared(slot, nflows, sock_entries);
	for (i = 0; i < nflows; i++)
		slot[i] = rfs_dev_index(&hdr, hash[i], 0);
	res->dev_collisions = rfs_sz_shared(slot, nflows, ndev);

	/* warm-up (not counted): one frame per flow in turn, then as many
	 * at random (the moves from the first, unknown, CPU settle) */
	for (frames = 0, n = 0; n < warm + total; n++) {
		__u32 f = n < nflows ? (__u32)n : rfs_sz_rand() % nflows;
		__u32 h = hash[f], idx = rfs_dev_index(&hdr, h, 0);
		rfs_sock_entry_t se = sock[rfs_sock_index(h, smask)];
		struct rfs_flow_state st = {
			.hash = h,
			.rx_cpu = (h >> 24) % opt.cpus,
			.cur = dev[idx],
		};
		struct rfs_choice ch;
		int counted = n >= warm;

		st.desired_cpu = rfs_sock_entry_cpu(se, h, cpu_mask);
		st.cur_drained = n - last[idx] >= opt.lag;
		ch = rfs_pick_cpu(&st, &cfg);
		if (ch.verdict == RFS_V_NONE)
			ch.cpu = st.rx_cpu;	/* passed up where it came */
		else
			rfs_record_remote(&dev[idx], ch.cpu, st.rx_cpu,
					  ++seq[ch.cpu % RFS_MAX_CPUS]);
		last[idx] = n;
		if (counted) {
			frames++;
			good += ch.cpu == want[f];
			if (se && st.desired_cpu == RFS_NO_CPU)
				miss++;
			else if (st.desired_cpu != RFS_NO_CPU &&
				 st.desired_cpu != want[f])
				wrong++;
			held += ch.verdict == RFS_V_HELD;
			sw += ch.verdict == RFS_V_SWITCH ||
			      ch.verdict == RFS_V_FORCED;
		}
		/* the application reads it, on its CPU */
		sock[rfs_sock_index(h, smask)] =
			rfs_sock_entry_make(h, want[f], cpu_mask);
	}
	res->accuracy = 100.0 * good / frames;
	res->tag_miss = 100.0 * miss / frames;
	res->wrong_cpu = 100.0 * wrong / frames;
	res->held = 100.0 * held / frames;
	res->switches = 100.0 * sw / frames;
	e = 0;
out:
	free(hash);
	free(want);
	free(slot);
	free(sock);
	free(dev);
	free(last);
	return e;
}

static int rfs_sz_pow2(__u32 v)
{
	return v && !(v & (v - 1));
}

/* "a,b,c" of powers of two within [lo, hi] (any value when hi is 0) */
static int rfs_sz_list(const char *s, __u32 *v, int *n)
{
	char *end;

	for (*n = 0; *s && *n < RFS_SZ_MAX_LIST; s = *end ? end + 1 : end) {
		v[(*n)++] = strtoul(s, &end, 0);
		if (end == s || (*end && *end != ','))
			return -1;
	}
	return *n ? 0 : -1;
}

/* "S:D,S:D" */
static int rfs_sz_tables(const char *s)
{
	char *end;

	for (opt.ntables = 0; *s && opt.ntables < RFS_SZ_MAX_LIST;
	     s = *end ? end + 1 : end) {
		opt.sock[opt.ntables] = strtoul(s, &end, 0);
		if (*end != ':')
			return -1;
		s = end + 1;
		opt.devtab[opt.ntables] = strtoul(s, &end, 0);
		if (end == s || (*end && *end != ','))
			return -1;
		if (!rfs_sz_pow2(opt.sock[opt.ntables]) ||
		    !rfs_sz_pow2(opt.devtab[opt.ntables]) ||
		    opt.sock[opt.ntables] < RFS_SOCK_FLOW_MIN ||
		    opt.sock[opt.ntables] > RFS_SOCK_FLOW_MAX ||
		    opt.devtab[opt.ntables] < RFS_FLOW_CNT_MIN ||
		    opt.devtab[opt.ntables] > RFS_FLOW_CNT_MAX)
			return -1;
		opt.ntables++;
	}
	return opt.ntables ? 0 : -1;
}

static void rfs_sz_usage(FILE *f)
{
	fprintf(f,
		"Usage: sizing [--flows LIST] [--tables S:D,...] [--cpus N]\n"
		"              [--frames K] [--lag L] [--seed N] [--stdout]\n"
		"Steering accuracy against the number of flows, simulated over the\n"
		"datapath's decision code (include/).\n"
		"\n"
		"  --flows LIST     flow counts (default 256,...,1048576 by 4)\n"
		"  --tables S:D,... sock_flow_entries:flow_cnt pairs, powers of two\n"
		"                   (default 4096:1024,32768:4096,262144:32768)\n"
		"  --cpus N         application CPUs (default 8)\n"
		"  --frames K       frames per flow measured (default 4)\n"
		"  --lag L          frames until a path counts as drained (default 128)\n"
		"  --seed N         random seed (default 0x5eed)\n"
		"  --stdout         rows to stdout, not $OUT/results.tsv\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "tables", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'k' },
		{ "lag", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "stdout", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *quick = getenv("QUICK"), *outdir = getenv("OUT");
	const char *flows = quick && *quick ? "256,4096,65536,262144" :
			    "256,1024,4096,16384,65536,262144,1048576";
	const char *tables = "4096:1024,32768:4096,262144:32768";
	char path[4096];
	struct rfs_sz_result r;
	FILE *out = stdout;
	struct stat sb;
	int c, i, j;
	clock_t t0 = clock();

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': flows = optarg; break;
		case 't': tables = optarg; break;
		case 'c': opt.cpus = strtoul(optarg, NULL, 0); break;
		case 'k': opt.frames = strtoul(optarg, NULL, 0); break;
		case 'l': opt.lag = strtoul(optarg, NULL, 0); break;
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'o': opt.to_stdout = 1; break;
		case 'h': rfs_sz_usage(stdout); return 0;
		default: rfs_sz_usage(stderr); return 2;
		}
	}
	if (rfs_sz_list(flows, opt.flows, &opt.nflows) || rfs_sz_tables(tables) ||
	    opt.cpus < 1 || opt.cpus > RFS_MAX_CPUS || !opt.frames) {
		rfs_sz_usage(stderr);
		return 2;
	}
	if (!opt.to_stdout) {
		snprintf(path, sizeof(path), "%s/results.tsv",
			 outdir && *outdir ? outdir : "build/bench");
		out = fopen(path, "a");
		if (!out) {
			fprintf(stderr, "sizing: can't open file '%s': %s\n",
				path, strerror(errno));
			return 1;
		}
		if (!fstat(fileno(out), &sb) && !sb.st_size)
			fprintf(out, "workload\tparam\tmode\tround\tmetric\tvalue\tunit\n");
	}
	for (j = 0; j < opt.ntables; j++) {
		for (i = 0; i < opt.nflows; i++) {
			char p[128];

			rng = opt.seed ^ ((__u64)opt.flows[i] << 20) ^ j;
			if (!rng)
				rng = 1;
			if (rfs_sz_run(opt.flows[i], opt.sock[j], opt.devtab[j], &r)) {
				fprintf(stderr, "sizing: can't simulate 'flows=%u': out of memory\n",
					opt.flows[i]);
				return 1;
			}
			snprintf(p, sizeof(p), "flows=%u,sock=%u,devtab=%u,cpus=%u",
				 opt.flows[i], opt.sock[j], opt.devtab[j], opt.cpus);
#define ROW(m, v) fprintf(out, "sizing\t%s\tsim\t0\t%s\t%.3f\tpct\n", p, m, v)
			ROW("accuracy_pct", r.accuracy);
			ROW("collisions_pct", r.collisions);
			ROW("tag_miss_pct", r.tag_miss);
			ROW("wrong_cpu_pct", r.wrong_cpu);
			ROW("dev_collisions_pct", r.dev_collisions);
			ROW("held_pct", r.held);
			ROW("switches_pct", r.switches);
#undef ROW
		}
	}
	if (out != stdout)
		fclose(out);
	fprintf(stderr, "  sizing  %d table sizes x %d flow counts in %.1f s\n",
		opt.ntables, opt.nflows, (double)(clock() - t0) / CLOCKS_PER_SEC);
	return 0;
}
