// SPDX-License-Identifier: GPL-2.0
/*
 * A packet fuzzer for rfs_xdp over BPF_PROG_TEST_RUN: the real
 * program, loaded through daemon/lib as rfsd loads it, run on every cut
 * of valid IPv4/IPv6/VLAN/QinQ TCP/UDP frames, on bogus header lengths,
 * on IPv6 extension header chains, on fragments, on mutated frames and on
 * random bytes.
 *
 * Each frame is checked against the reference parser of frames_ref.h,
 * written from the rules in bpf/rfs_parse.bpf.h's header comment, not
 * from its code.  What must hold for every frame:
 *   - the verdict is XDP_PASS or XDP_REDIRECT, nothing else;
 *   - the counters move as rfs_common.h says: seen by one, and exactly one
 *     outcome (steered, or one pass_* reason, or redirect_err), steered =
 *     to_desired + spread + held, local only with steered, REDIRECT iff
 *     steered and not local;
 *   - the outcome is the one the reference parser names (a frame it can
 *     parse is steered or passed for want of a table or CPU; one it can't
 *     is passed for its reason: not IP, fragment, other protocol,
 *     truncated);
 *   - for a frame the reference parses, the program's flow hash (its
 *     rfs_flow_hits sample) is rfs_flow_hash() of the reference's key,
 *     and for frames built whole by frames.h that key is frames.h's;
 *   - the frame comes back unchanged, behind metadata only when
 *     redirected held (the others go bare).
 * The random part uses a fixed seed (printed); RFS_FUZZ_SEED=N picks
 * another and RFS_FUZZ_ITERS=N (default 20000) its length.  A failure
 * prints the frame in hex with the seed and iteration.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <netinet/in.h>

#include "frames_ref.h"
#include "rfs_decide.h"
#include "log.h"
#include "rfs_dp.h"
#include "rfs_test_util.h"

#define RFS_FZ_RX_CPU		0	/* the test thread runs here */
#define RFS_FZ_MAX		RFS_FR_REF_MAX
#define RFS_FZ_ITERS		20000

static struct {
	struct rfs_dp *dp;
	struct rfs_if *ifc;
	struct rfs_globals g;
	int ncpus;
	char pin_dir[64];
	cpu_set_t old_affinity;
	bool pinned;
	__u64 seed;		/* the random part's */
	__u64 rng;
	const char *what;	/* the frame being run, for failures */
	__u32 n_redirect, n_pass, n_hash;
} fz;

/* ---- setup ------------------------------------------------------------ */

static void rfs_fz_cleanup(void)
{
	if (fz.dp) {
		rfs_dp_close(fz.dp, true);
		fz.dp = NULL;
		fz.ifc = NULL;
	}
	if (fz.pinned) {
		sched_setaffinity(0, sizeof(fz.old_affinity), &fz.old_affinity);
		fz.pinned = false;
	}
}

/* Killed or interrupted: still remove the pins. */
static void rfs_fz_on_signal(int sig)
{
	rfs_fz_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int rfs_fz_group_setup(void **state)
{
	char err[RFS_ERR_LEN] = "";
	const char *env;
	__u32 zero = 0;

	fz.ncpus = libbpf_num_possible_cpus();
	snprintf(fz.pin_dir, sizeof(fz.pin_dir),
		 "/sys/fs/bpf/rfs-test-fuzz-%d", (int)getpid());
	atexit(rfs_fz_cleanup);
	signal(SIGINT, rfs_fz_on_signal);
	signal(SIGTERM, rfs_fz_on_signal);
	signal(SIGHUP, rfs_fz_on_signal);

	/* One RX CPU, so the per-CPU samples and counters are its own. */
	if (rfs_tu_pin_cpu("test_xdp_fuzz", RFS_FZ_RX_CPU, &fz.old_affinity))
		return -1;
	fz.pinned = true;

	if (rfs_tu_dp_open(&fz.dp, fz.pin_dir, RFS_TRACE_AUTO, 1024, err)) {
		fprintf(stderr, "test_xdp_fuzz: can't open the datapath: %s\n",
			err);
		return -1;
	}
	if (bpf_map_lookup_elem(fz.dp->globals_fd, &zero, &fz.g)) {
		fprintf(stderr, "test_xdp_fuzz: can't read %s\n",
			RFS_MAP_GLOBALS);
		return -1;
	}
	env = getenv("RFS_FUZZ_SEED");
	fz.seed = env && *env ? strtoull(env, NULL, 0) : 0x72667378u;
	print_message("  test_xdp_fuzz: seed %llu (RFS_FUZZ_SEED to change)\n",
		      (unsigned long long)fz.seed);
	return 0;
}

static int rfs_fz_group_teardown(void **state)
{
	rfs_fz_cleanup();
	return 0;
}

/* A fresh interface per test, sampling every flow's hash into
 * rfs_flow_hits; local says whether the RX CPU's own flows are passed up
 * here (as rfsd attaches) or go through the cpumap too. */
static int rfs_fz_attach(bool local)
{
	struct rfs_if_opts o = {
		.no_attach = true,
		.flow_cnt = 64,
		.no_local_path = !local,
	};
	char err[RFS_ERR_LEN] = "";

	if (!fz.dp || rfs_if_attach(fz.dp, "fz0", &o, &fz.ifc, err) ||
	    rfs_if_push_config(fz.ifc, 1)) {
		fprintf(stderr, "test_xdp_fuzz: can't attach: %s\n", err);
		return -1;
	}
	fz.rng = fz.seed;
	fz.n_redirect = fz.n_pass = fz.n_hash = 0;
	return 0;
}

static int rfs_fz_setup_local(void **state)
{
	return rfs_fz_attach(true);
}

static int rfs_fz_setup_remote(void **state)
{
	return rfs_fz_attach(false);
}

static int rfs_fz_teardown(void **state)
{
	char err[RFS_ERR_LEN];

	print_message("  %u frames redirected, %u passed, %u hashes compared\n",
		      fz.n_redirect, fz.n_pass, fz.n_hash);
	if (fz.ifc && rfs_if_detach(fz.dp, fz.ifc, err))
		fprintf(stderr, "test_xdp_fuzz: %s\n", err);
	fz.ifc = NULL;
	return 0;
}

/* splitmix64: the same sequence on every host for one seed */
static __u64 rfs_fz_rand(void)
{
	__u64 z = (fz.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static __u32 rfs_fz_below(__u32 n)
{
	return (__u32)(rfs_fz_rand() % n);
}

/* ---- running one frame ------------------------------------------------ */

static struct rfs_flow_hit rfs_fz_hit(__u32 hash)
{
	struct rfs_flow_hit *v = calloc(fz.ncpus, sizeof(*v)), h;

	assert_non_null(v);
	assert_int_equal(rfs_read_percpu(fz.ifc->hits_fd,
					 hash & (RFS_FLOW_HITS - 1),
					 sizeof(*v), v, fz.ncpus), 0);
	h = v[RFS_FZ_RX_CPU];
	free(v);
	return h;
}

/* Where the socket side says a flow's application runs: CPU 0 or 1 (the
 * RX CPU and another), one that does not exist, or nowhere. */
static void rfs_fz_set_desired(__u32 hash)
{
	__u32 idx = hash & fz.g.sock_flow_mask, pick = rfs_fz_below(4);
	rfs_sock_entry_t e = 0;

	if (pick < 3)
		e = rfs_sock_entry_make(hash, pick, fz.g.cpu_mask);
	assert_int_equal(bpf_map_update_elem(fz.dp->sock_flows_fd, &idx, &e,
					     BPF_ANY), 0);
}

static void rfs_fz_fail(const __u8 *p, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rfs_fz_fail(const __u8 *p, size_t len, const char *fmt, ...)
{
	char msg[256], hex[3 * 128 + 8] = "";
	size_t i, n = len < 128 ? len : 128;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < n; i++)
		snprintf(hex + 3 * i, 4, "%02x ", p[i]);
	fail_msg("%s (seed %llu): %s\n  %zu bytes: %s%s", fz.what,
		 (unsigned long long)fz.seed, msg, len, hex,
		 len > n ? "..." : "");
}

/* Every counter of rfs_if_stats, in order, for failure messages. */
static const char *const rfs_fz_counter_names[] = {
	"seen", "steered", "to_desired", "spread", "held", "local",
	"switches", "pass_not_ip", "pass_fragment", "pass_other_proto",
	"pass_truncated", "pass_no_table", "redirect_err", "no_meta",
	"early_drop",
};
_Static_assert(sizeof(rfs_fz_counter_names) / sizeof(char *) ==
	       sizeof(struct rfs_if_stats) / sizeof(__u64),
	       "a name for every counter");
#define RFS_FZ_CNT_LEN	512

/* The counters that moved, "name n ...", into buf (RFS_FZ_CNT_LEN). */
static const char *rfs_fz_counters(const struct rfs_if_stats *d, char *buf)
{
	const __u64 *v = (const __u64 *)d;
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(rfs_fz_counter_names) / sizeof(char *); i++)
		if (v[i] && n < RFS_FZ_CNT_LEN)
			n += snprintf(buf + n, RFS_FZ_CNT_LEN - n, " %s %llu",
				      rfs_fz_counter_names[i],
				      (unsigned long long)v[i]);
	return buf[0] ? buf + 1 : "none";
}

/* The counter a class of frame is passed under. */
static __u64 rfs_fz_reason(const struct rfs_if_stats *d, int class)
{
	switch (class) {
	case RFS_FR_REF_NOT_IP: return d->pass_not_ip;
	case RFS_FR_REF_FRAGMENT: return d->pass_fragment;
	case RFS_FR_REF_OTHER_PROTO: return d->pass_other_proto;
	case RFS_FR_REF_TRUNCATED: return d->pass_truncated;
	default: return d->steered + d->pass_no_table + d->redirect_err;
	}
}

/*
 * Run one frame and check everything the header comment promises; want
 * (if given) is the key frames.h says the frame has.  Returns the class
 * the reference parser gave it.
 */
static int rfs_fz_run(const __u8 *p, size_t len,
		      const struct rfs_flow_key *want)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct xdp_md ctx = {}, ctx_out = {};
	struct rfs_if_stats before, now, d;
	struct rfs_flow_hit hit0 = {}, hit;
	struct rfs_flow_key k;
	__u8 out[RFS_FZ_MAX + 64];
	char cnt[RFS_FZ_CNT_LEN];
	__u32 hash = 0, meta;
	__u64 outcomes;
	int class;

	assert_in_range(len, 14, RFS_FZ_MAX);
	class = rfs_fr_ref(p, len, &k);
	if (want && (class != RFS_FR_REF_OK || memcmp(&k, want, sizeof(k))))
		rfs_fz_fail(p, len, "the reference parser does not find frames.h's key (%s)",
			    rfs_fr_ref_name[class]);
	if (class == RFS_FR_REF_OK) {
		hash = rfs_flow_hash(&k, fz.g.hash_seed);
		rfs_fz_set_desired(hash);
		hit0 = rfs_fz_hit(hash);
	}

	assert_int_equal(rfs_tu_if_stats(fz.ifc, fz.ncpus, &before), 0);
	ctx.data_end = len;
	o.data_in = p;
	o.data_size_in = len;
	o.data_out = out;
	o.data_size_out = sizeof(out);
	o.ctx_in = &ctx;
	o.ctx_size_in = sizeof(ctx);
	o.ctx_out = &ctx_out;
	o.ctx_size_out = sizeof(ctx_out);
	o.repeat = 1;
	if (bpf_prog_test_run_opts(fz.ifc->prog_fd, &o))
		rfs_fz_fail(p, len, "test run: %s", strerror(errno));
	assert_int_equal(rfs_tu_if_stats(fz.ifc, fz.ncpus, &now), 0);
	d = rfs_tu_stats_sub(&now, &before);

	if (o.retval != XDP_PASS && o.retval != XDP_REDIRECT)
		rfs_fz_fail(p, len, "verdict %u", o.retval);
	outcomes = d.steered + d.pass_not_ip + d.pass_fragment +
		   d.pass_other_proto + d.pass_truncated + d.pass_no_table +
		   d.redirect_err;
	if (d.seen != 1 || outcomes != 1 ||
	    d.to_desired + d.spread + d.held != d.steered ||
	    d.local > d.steered || d.no_meta > d.steered - d.local)
		rfs_fz_fail(p, len, "counters out of line: %s",
			    rfs_fz_counters(&d, cnt));
	if ((o.retval == XDP_REDIRECT) != (d.steered && !d.local))
		rfs_fz_fail(p, len, "verdict %u with %s", o.retval,
			    rfs_fz_counters(&d, cnt));
	if (rfs_fz_reason(&d, class) != 1)
		rfs_fz_fail(p, len, "the reference parser says %s; counters: %s",
			    rfs_fr_ref_name[class], rfs_fz_counters(&d, cnt));

	/* the frame itself is never touched, only prefixed, and only when
	 * held (rfs_order.h, LAZY MARKS: the others go bare) */
	meta = ctx_out.data;
	if (meta != (o.retval == XDP_REDIRECT && d.held && !d.no_meta ?
		     sizeof(struct rfs_frame_meta) : 0) ||
	    o.data_size_out != meta + len || memcmp(out + meta, p, len))
		rfs_fz_fail(p, len, "frame changed: %u bytes of metadata, %u bytes out",
			    meta, o.data_size_out);
	if (meta) {
		struct rfs_frame_meta m;

		memcpy(&m, out, sizeof(m));
		if (m.magic != RFS_META_MAGIC || m.rx_cpu != RFS_FZ_RX_CPU ||
		    m.cpu >= fz.ncpus)
			rfs_fz_fail(p, len, "metadata magic %#x rx_cpu %u cpu %u",
				    m.magic, m.rx_cpu, m.cpu);
	}

	if (class == RFS_FR_REF_OK) {
		/* the program sampled its own hash into that slot */
		hit = rfs_fz_hit(hash);
		if (hit.hash != hash ||
		    hit.frames != (hit0.hash == hash ? hit0.frames + 1 : 1))
			rfs_fz_fail(p, len, "the program's flow hash is not the reference's %08x (slot holds %08x, %u frames)",
				    hash, hit.hash, hit.frames);
		fz.n_hash++;
	}
	if (o.retval == XDP_REDIRECT)
		fz.n_redirect++;
	else
		fz.n_pass++;
	return class;
}

/* ---- frames ----------------------------------------------------------- */

/* Variant v (0..23) of a valid frame: v4/v6, options or hop-by-hop,
 * TCP/UDP, no tag, 802.1Q or QinQ. */
static void rfs_fz_variant(unsigned int v, __u16 sport, struct rfs_frame *f)
{
	__u8 proto = v & 1 ? IPPROTO_UDP : IPPROTO_TCP;

	if (v & 2)
		rfs_frame_v6(f, proto, "2001:db8::2", sport, "2001:db8::1", 443);
	else
		rfs_frame_v4(f, proto, "192.0.2.2", sport, "192.0.2.1", 443);
	f->opts = !!(v & 4);
	f->vlans = (v >> 3) % 3;
}

#define RFS_FZ_VARIANTS	24

static size_t rfs_fz_build(const struct rfs_frame *f, __u8 *buf,
			   struct rfs_frame_layout *lay,
			   struct rfs_flow_key *key)
{
	rfs_frame_build(f, buf, lay);
	rfs_frame_key(f, key);
	return lay->len;
}

/* A fragment header's offset/flags: the first or a later fragment. */
static __u16 rfs_fz_frag_off(void)
{
	return rfs_fz_below(2) ? RFS_FR_IP_MF : 8 << 3;
}

/* ---- tests ------------------------------------------------------------ */

/* Every cut of every valid variant: truncated until the ports are there,
 * then steered under frames.h's key. */
static void test_truncations(void **state)
{
	__u8 buf[RFS_FZ_MAX];
	struct rfs_frame_layout lay;
	struct rfs_flow_key key;
	struct rfs_frame f;
	char what[64];
	unsigned int v;
	size_t len, cut;
	bool whole;

	for (v = 0; v < RFS_FZ_VARIANTS; v++) {
		rfs_fz_variant(v, 40000 + v, &f);
		len = rfs_fz_build(&f, buf, &lay, &key);
		for (cut = 14; cut <= len; cut++) {
			snprintf(what, sizeof(what), "variant %u cut at %zu",
				 v, cut);
			fz.what = what;
			whole = cut >= lay.ports_end;
			if (rfs_fz_run(buf, cut, whole ? &key : NULL) !=
			    (whole ? RFS_FR_REF_OK : RFS_FR_REF_TRUNCATED))
				rfs_fz_fail(buf, cut, "not %s",
					    whole ? "parsed" : "truncated");
		}
	}
}

/* IHL 0..15, any IPv4 total length, any IPv6 payload length, IPv4
 * fragments (MF, offsets), on every variant. */
static void test_header_fields(void **state)
{
	static const __u16 lens[] = { 0, 1, 19, 20, 40, 1500, 0xffff };
	static const __u16 frags[] = { RFS_FR_IP_MF, 1, 0x1fff, 0x4000,
				       0x8000, RFS_FR_IP_MF | 185 };
	__u8 buf[RFS_FZ_MAX];
	struct rfs_frame_layout lay;
	struct rfs_flow_key key;
	struct rfs_frame f;
	char what[64];
	unsigned int v, i, c;
	size_t len;

	for (v = 0; v < RFS_FZ_VARIANTS; v++) {
		rfs_fz_variant(v, 41000 + v, &f);
		len = rfs_fz_build(&f, buf, &lay, &key);
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			/* lengths in the IP header don't move the ports */
			snprintf(what, sizeof(what), "variant %u IP length %u",
				 v, lens[i]);
			fz.what = what;
			rfs_fr_put16(buf + lay.l3 + (f.v6 ? 4 : 2), lens[i]);
			rfs_fz_run(buf, len, &key);
		}
		if (f.v6)
			continue;
		for (i = 0; i < 16; i++) {
			rfs_fz_build(&f, buf, &lay, &key);
			buf[lay.l3] = 0x40 | i;
			snprintf(what, sizeof(what), "variant %u IHL %u", v, i);
			fz.what = what;
			c = rfs_fz_run(buf, len, NULL);
			if (i < 5 ? c != RFS_FR_REF_TRUNCATED :
			    i == (f.opts ? 7u : 5u) && c != RFS_FR_REF_OK)
				rfs_fz_fail(buf, len, "IHL %u: %s", i,
					    rfs_fr_ref_name[c]);
		}
		rfs_fz_build(&f, buf, &lay, &key);
		for (i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
			snprintf(what, sizeof(what), "variant %u frag_off %#x",
				 v, frags[i]);
			fz.what = what;
			rfs_fr_put16(buf + lay.l3 + 6, frags[i]);
			c = rfs_fz_run(buf, len, NULL);
			/* DF (0x4000) alone is no fragment */
			if (c != ((frags[i] & 0x3fff) ? RFS_FR_REF_FRAGMENT : RFS_FR_REF_OK))
				rfs_fz_fail(buf, len, "frag_off %#x: %s",
					    frags[i], rfs_fr_ref_name[c]);
		}
	}
}

/* Every chain of up to four extension headers over hop-by-hop, routing,
 * fragment and destination options, with random lengths: three skipped
 * headers are steered, a fourth is another protocol, a fragment header
 * within reach is a fragment. */
static void test_v6_ext_chains(void **state)
{
	static const __u8 kinds[] = { 0, 43, RFS_FR_NEXTHDR_FRAG, 60 };
	__u8 buf[RFS_FZ_MAX], types[4], lens[4];
	struct rfs_flow_key key;
	struct rfs_frame f;
	char what[64];
	unsigned int n, code, i, vlans;
	int c, want;
	size_t len;

	for (n = 0; n <= 4; n++) {
		for (code = 0; code < 1u << (2 * n); code++) {
			want = RFS_FR_REF_OK;
			for (i = 0; i < n; i++) {
				types[i] = kinds[(code >> (2 * i)) & 3];
				lens[i] = rfs_fz_below(4);
				if (want != RFS_FR_REF_OK)
					continue;
				if (types[i] == RFS_FR_NEXTHDR_FRAG)
					want = RFS_FR_REF_FRAGMENT;
				else if (i == 3)
					want = RFS_FR_REF_OTHER_PROTO;
			}
			vlans = rfs_fz_below(3);
			rfs_frame_v6(&f, code & 1 ? IPPROTO_UDP : IPPROTO_TCP,
				     "2001:db8::2", 42000 + code,
				     "2001:db8::1", 443);
			f.vlans = vlans;
			len = rfs_frame_v6_chain(&f, types, lens, n,
						 rfs_fz_frag_off(), buf, &key);
			snprintf(what, sizeof(what), "v6 chain n %u code %#x",
				 n, code);
			fz.what = what;
			c = rfs_fz_run(buf, len, want == RFS_FR_REF_OK ? &key : NULL);
			if (c != want)
				rfs_fz_fail(buf, len, "%s, not %s",
					    rfs_fr_ref_name[c],
					    rfs_fr_ref_name[want]);
		}
	}
}

/* Random bytes, random bytes behind IP/VLAN ethertypes, and valid frames
 * (extension chains included) with bits flipped, bytes set to edge
 * values and cuts: RFS_FUZZ_ITERS of them from the seed. */
static void test_random(void **state)
{
	static const __u16 types[] = { RFS_FR_ETH_P_IP, RFS_FR_ETH_P_IPV6,
				       RFS_FR_ETH_P_8021Q, RFS_FR_ETH_P_8021AD };
	static const __u8 edges[] = { 0, 1, 4, 5, 6, 17, 43, 44, 60, 0x45,
				      0x60, 0x81, 0xff };
	const char *env = getenv("RFS_FUZZ_ITERS");
	__u32 iters = env && *env ? strtoul(env, NULL, 0) : RFS_FZ_ITERS;
	__u8 buf[RFS_FZ_MAX], types6[4], lens6[4];
	struct rfs_frame_layout lay;
	struct rfs_flow_key key;
	struct rfs_frame f;
	char what[64];
	__u32 it, k, n;
	size_t len;

	for (it = 0; it < iters; it++) {
		snprintf(what, sizeof(what), "random frame %u", it);
		fz.what = what;
		switch (rfs_fz_below(4)) {
		case 0:		/* noise */
			len = 14 + rfs_fz_below(400);
			for (k = 0; k < len; k++)
				buf[k] = rfs_fz_rand();
			break;
		case 1:		/* noise behind a plausible ethertype */
			len = 14 + rfs_fz_below(400);
			for (k = 0; k < len; k++)
				buf[k] = rfs_fz_rand();
			rfs_fr_put16(buf + 12, types[rfs_fz_below(4)]);
			if (rfs_fz_below(2))
				rfs_fr_put16(buf + 16, types[rfs_fz_below(2)]);
			break;
		default:	/* a valid frame, mutated */
			rfs_fz_variant(rfs_fz_below(RFS_FZ_VARIANTS),
				       rfs_fz_rand(), &f);
			if (f.v6 && rfs_fz_below(2)) {
				n = rfs_fz_below(5);
				for (k = 0; k < n; k++) {
					types6[k] = (__u8[]){ 0, 43, 44, 60 }
						[rfs_fz_below(4)];
					lens6[k] = rfs_fz_below(8);
				}
				len = rfs_frame_v6_chain(&f, types6, lens6, n,
							 rfs_fz_frag_off(),
							 buf, &key);
			} else {
				len = rfs_fz_build(&f, buf, &lay, &key);
			}
			n = rfs_fz_below(4);
			for (k = 0; k < n; k++) {
				if (rfs_fz_below(2))
					buf[rfs_fz_below(len)] ^= 1 << rfs_fz_below(8);
				else
					buf[rfs_fz_below(len)] =
						edges[rfs_fz_below(sizeof(edges))];
			}
			if (rfs_fz_below(4) == 0)
				len = 14 + rfs_fz_below(len - 13);
			break;
		}
		rfs_fz_run(buf, len, NULL);
	}
	print_message("  %u random frames\n", iters);
	/* the mix reaches both verdicts */
	assert_true(fz.n_redirect > 0);
	assert_true(fz.n_pass > 0);
}

/* The same frames with every one through the cpumap, none passed up
 * locally. */
static void test_random_remote(void **state)
{
	test_random(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, \
						     rfs_fz_teardown)
		T(test_truncations, rfs_fz_setup_local),
		T(test_header_fields, rfs_fz_setup_local),
		T(test_v6_ext_chains, rfs_fz_setup_local),
		T(test_random, rfs_fz_setup_local),
		T(test_random_remote, rfs_fz_setup_remote),
#undef T
	};

	rfs_log_init("test_xdp_fuzz", getenv("V") != NULL);
	rfs_log_hook_libs();
	if (geteuid()) {
		fprintf(stderr, "test_xdp_fuzz: needs root (BPF_PROG_TEST_RUN)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, rfs_fz_group_setup,
				      rfs_fz_group_teardown);
}
