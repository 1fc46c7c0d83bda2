// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of include/rfs_hash.h: the murmur3 core against published
 * MurmurHash3_x86_32 vectors, and the flow hash properties the datapath
 * relies on (both hooks fill the key by role, v4-mapped sockets fold to
 * IPv4, every field feeds the hash).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "rfs_hash.h"

/*
 * Published MurmurHash3_x86_32 vectors whose length is a multiple of 4,
 * so rfs_murmur3_words() (whole words only, no tail) can take them.  Each
 * was checked against a byte-oriented python3 murmur3_32 written from the
 * algorithm, which also reproduces the published vectors with a 1-3 byte
 * tail ("a", "aaa", "\x21\x43\x65", "Hello, world!", "The quick brown
 * fox jumps over the lazy dog"), so it is not merely agreeing with itself.
 */
struct rfs_test_vec {
	const char *in;
	int len;
	__u32 seed;
	__u32 want;
};

static const struct rfs_test_vec rfs_test_vecs[] = {
	{ "", 0, 0, 0 },
	{ "", 0, 1, 0x514e28b7 },
	{ "", 0, 0xffffffff, 0x81f16f39 },
	{ "\0\0\0\0", 4, 0, 0x2362f9de },
	{ "\x21\x43\x65\x87", 4, 0, 0xf55b516b },
	{ "\x21\x43\x65\x87", 4, 0x5082edee, 0x2362f9de },
	{ "\xff\xff\xff\xff", 4, 0, 0x76293b50 },
	{ "aaaa", 4, 0x9747b28c, 0x5a97808a },
	{ "abcd", 4, 0x9747b28c, 0xf0478627 },
	{ "test", 4, 0, 0xba6bd213 },
	{ "test", 4, 0x9747b28c, 0x704b81dc },
	{ "dude", 4, 0, 0xef0487f3 },
	{ "kinkajou", 8, 0, 0xb6d99cf8 },
	{ "testy123", 8, 0, 0x47628ac4 },
};

/* The reference reads the input as little-endian words. */
static int rfs_test_le_words(const char *in, int len, __u32 *w)
{
	const unsigned char *b = (const unsigned char *)in;
	int i;

	for (i = 0; i < len / 4; i++)
		w[i] = b[4 * i] | b[4 * i + 1] << 8 | b[4 * i + 2] << 16 |
		       (__u32)b[4 * i + 3] << 24;
	return len / 4;
}

static void rfs_test_murmur3_vectors(void **state)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(rfs_test_vecs) / sizeof(rfs_test_vecs[0]); i++) {
		const struct rfs_test_vec *v = &rfs_test_vecs[i];
		__u32 w[4], got;
		int n;

		assert_true(v->len % 4 == 0 && v->len <= 16);
		n = rfs_test_le_words(v->in, v->len, w);
		got = rfs_murmur3_words(w, n, v->seed);
		if (got != v->want) {
			print_error("murmur3 of %d bytes, seed %#x: got %#x, want %#x\n",
				    v->len, v->seed, got, v->want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * Pins the key layout (which field goes in which word) as well as the
 * hash: rfsd and rfsctl must hash a flow exactly as the BPF side does.
 * Expected value from the python3 reference over the same 4 words
 * (local, peer, local_port << 16 | peer_port, proto).
 */
static void rfs_test_flow_hash_layout(void **state)
{
	struct rfs_flow_key k = {
		.local_port = 80,
		.peer_port = 40000,
		.proto = IPPROTO_TCP,
	};

	k.local[0] = inet_addr("10.0.0.1");
	k.peer[0] = inet_addr("10.0.0.2");
	assert_int_equal(rfs_flow_hash(&k, 0x12345678), 0xb224c030);
}

/*
 * The same for an IPv6 key's 10 words (local, peer, ports as above,
 * 1 << 8 | proto; every word non-zero), whose rounds rfs_flow_hash()
 * writes out one by one.
 */
static void rfs_test_flow_hash_layout_v6(void **state)
{
	struct rfs_flow_key k = {
		.local_port = 443,
		.peer_port = 50000,
		.proto = IPPROTO_TCP,
		.is_v6 = 1,
	};

	assert_int_equal(inet_pton(AF_INET6, "2001:db8:1:2:3:4:5:6", k.local), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:a:b:c:d:e:f", k.peer), 1);
	assert_int_equal(rfs_flow_hash(&k, 0x12345678), 0x0b996957);
}

/* One connection as the wire and the socket see it. */
struct rfs_test_conn {
	int v6;
	const char *local;
	const char *peer;
	__u16 local_port;
	__u16 peer_port;
	__u8 proto;
};

static void rfs_test_addr(int v6, const char *s, __u32 a[4])
{
	memset(a, 0, 16);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, s, a), 1);
}

/*
 * As rfs_parse_frame() fills it from an incoming frame: the frame's
 * source is the peer, its destination the local end.
 */
static void rfs_test_key_from_frame(const struct rfs_test_conn *c,
				    struct rfs_flow_key *k)
{
	__u32 saddr[4], daddr[4];
	__u16 sport = c->peer_port, dport = c->local_port;

	rfs_test_addr(c->v6, c->peer, saddr);
	rfs_test_addr(c->v6, c->local, daddr);
	memset(k, 0, sizeof(*k));
	memcpy(k->peer, saddr, sizeof(k->peer));
	memcpy(k->local, daddr, sizeof(k->local));
	k->peer_port = sport;
	k->local_port = dport;
	k->proto = c->proto;
	k->is_v6 = c->v6;
}

/* As rfs_sock_key() fills it from a socket: rcv_saddr/num are local. */
static void rfs_test_key_from_sock(int v6, const char *rcv_saddr,
				   const char *daddr, __u16 num, __u16 dport,
				   __u8 proto, struct rfs_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	rfs_test_addr(v6, rcv_saddr, k->local);
	rfs_test_addr(v6, daddr, k->peer);
	k->local_port = num;
	k->peer_port = dport;
	k->proto = proto;
	k->is_v6 = v6;
	rfs_flow_key_normalise(k);
}

static const __u32 rfs_test_seed = 0xdeadbeef;

static void rfs_test_direction(void **state)
{
	static const struct rfs_test_conn conns[] = {
		{ 0, "192.0.2.1", "198.51.100.7", 443, 51000, IPPROTO_TCP },
		{ 0, "10.1.2.3", "10.3.2.1", 53, 33333, IPPROTO_UDP },
		{ 1, "2001:db8::1", "2001:db8:ffff::2", 8080, 61000,
		  IPPROTO_TCP },
	};
	unsigned int i;

	for (i = 0; i < sizeof(conns) / sizeof(conns[0]); i++) {
		const struct rfs_test_conn *c = &conns[i];
		struct rfs_flow_key xdp, sock, swapped;

		rfs_test_key_from_frame(c, &xdp);
		rfs_test_key_from_sock(c->v6, c->local, c->peer, c->local_port,
				       c->peer_port, c->proto, &sock);
		assert_memory_equal(&xdp, &sock, sizeof(xdp));
		assert_int_equal(rfs_flow_hash(&xdp, rfs_test_seed),
				 rfs_flow_hash(&sock, rfs_test_seed));

		/* The hash is not symmetric, so filling by role matters: a
		 * key filled by direction (frame src as local) would miss. */
		rfs_test_key_from_sock(c->v6, c->peer, c->local, c->peer_port,
				       c->local_port, c->proto, &swapped);
		assert_int_not_equal(rfs_flow_hash(&xdp, rfs_test_seed),
				     rfs_flow_hash(&swapped, rfs_test_seed));
	}
}

/* A dual-stack socket serving an IPv4 client vs. that client's frames. */
static void rfs_test_v4mapped(void **state)
{
	static const struct rfs_test_conn wire = {
		0, "192.0.2.1", "198.51.100.7", 443, 51000, IPPROTO_TCP,
	};
	struct rfs_flow_key xdp, sock;

	rfs_test_key_from_frame(&wire, &xdp);
	rfs_test_key_from_sock(1, "::ffff:192.0.2.1", "::ffff:198.51.100.7",
			       443, 51000, IPPROTO_TCP, &sock);
	assert_int_equal(sock.is_v6, 0);
	assert_memory_equal(&xdp, &sock, sizeof(xdp));
	assert_int_equal(rfs_flow_hash(&xdp, rfs_test_seed),
			 rfs_flow_hash(&sock, rfs_test_seed));
}

/* Keys rfs_flow_key_normalise() must leave exactly as they are. */
static void rfs_test_normalise_keeps_v6(void **state)
{
	static const struct {
		const char *local;
		const char *peer;
	} keep[] = {
		{ "2001:db8::1", "2001:db8::2" },		/* real v6 */
		{ "::ffff:192.0.2.1", "2001:db8::2" },		/* half mapped */
		{ "2001:db8::1", "::ffff:198.51.100.7" },	/* other half */
		{ "::192.0.2.1", "::198.51.100.7" },		/* v4-compatible */
		{ "::ffff:0:c000:201", "::ffff:0:c633:6407" },	/* v4-translated */
		/* marker in place, but the upper words are not zero */
		{ "1::ffff:192.0.2.1", "1::ffff:198.51.100.7" },
		{ "::1:0:0:ffff:192.0.2.1", "::1:0:0:ffff:198.51.100.7" },
		{ "64:ff9b::c000:201", "64:ff9b::c633:6407" },	/* NAT64 */
	};
	unsigned int i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		struct rfs_flow_key k = {
			.local_port = 443,
			.peer_port = 51000,
			.proto = IPPROTO_TCP,
			.is_v6 = 1,
		}, before;

		rfs_test_addr(1, keep[i].local, k.local);
		rfs_test_addr(1, keep[i].peer, k.peer);
		before = k;
		rfs_flow_key_normalise(&k);
		assert_memory_equal(&k, &before, sizeof(k));
	}
}

/* A v4 key is never touched, even if word 2 happens to hold the marker. */
static void rfs_test_normalise_keeps_v4(void **state)
{
	struct rfs_flow_key k = { .proto = IPPROTO_UDP }, before;

	rfs_test_addr(1, "::ffff:192.0.2.1", k.local);
	rfs_test_addr(1, "::ffff:198.51.100.7", k.peer);
	before = k;
	rfs_flow_key_normalise(&k);
	assert_memory_equal(&k, &before, sizeof(k));
}

static void rfs_test_base_key(struct rfs_flow_key *k)
{
	static const struct rfs_test_conn c = {
		0, "192.0.2.1", "198.51.100.7", 443, 51000, IPPROTO_TCP,
	};

	rfs_test_key_from_frame(&c, k);
}

static void rfs_test_proto(void **state)
{
	struct rfs_flow_key tcp, udp;

	rfs_test_base_key(&tcp);
	udp = tcp;
	udp.proto = IPPROTO_UDP;
	assert_int_not_equal(rfs_flow_hash(&tcp, rfs_test_seed),
			     rfs_flow_hash(&udp, rfs_test_seed));
}

static void rfs_test_ports_swapped(void **state)
{
	struct rfs_flow_key k, s;

	rfs_test_base_key(&k);
	s = k;
	s.local_port = k.peer_port;
	s.peer_port = k.local_port;
	assert_int_not_equal(rfs_flow_hash(&k, rfs_test_seed),
			     rfs_flow_hash(&s, rfs_test_seed));
}

static void rfs_test_seed_changes(void **state)
{
	struct rfs_flow_key k;

	rfs_test_base_key(&k);
	assert_int_not_equal(rfs_flow_hash(&k, 0), rfs_flow_hash(&k, 1));
	assert_int_not_equal(rfs_flow_hash(&k, rfs_test_seed),
			     rfs_flow_hash(&k, rfs_test_seed ^ 0x80000000));
}

static void rfs_test_stable(void **state)
{
	struct rfs_flow_key a, b;

	rfs_test_base_key(&a);
	rfs_test_base_key(&b);
	assert_int_equal(rfs_flow_hash(&a, rfs_test_seed),
			 rfs_flow_hash(&a, rfs_test_seed));
	assert_int_equal(rfs_flow_hash(&a, rfs_test_seed),
			 rfs_flow_hash(&b, rfs_test_seed));
}

/*
 * Every bit of every hashed field changes the hash, and the padding does
 * not: with the input length fixed, each murmur3 step is a bijection of
 * its state, so a one-word change can never cancel out.
 */
/* Is key bit `bit` one the hash reads?  An IPv4 key uses word 0 of each
 * address only: the others are zero by contract (rfs_hash.h); is_v6 is a
 * flag, so in a v6 key only its lowest bit can turn it off. */
static int rfs_test_bit_used(const struct rfs_flow_key *k, unsigned int bit)
{
	size_t byte = bit / 8;

	if (k->is_v6)
		return byte != offsetof(struct rfs_flow_key, is_v6) || bit % 8 == 0;
	return !((byte >= offsetof(struct rfs_flow_key, local[1]) &&
		  byte < offsetof(struct rfs_flow_key, peer)) ||
		 (byte >= offsetof(struct rfs_flow_key, peer[1]) &&
		  byte < offsetof(struct rfs_flow_key, local_port)));
}

static void rfs_test_every_field(void **state)
{
	static const struct rfs_test_conn v6 = {
		1, "2001:db8::1", "2001:db8::7", 443, 51000, IPPROTO_TCP,
	};
	struct rfs_flow_key keys[2], k, m;
	unsigned int bit, i;
	__u32 h;

	rfs_test_base_key(&keys[0]);
	rfs_test_key_from_frame(&v6, &keys[1]);
	for (i = 0; i < 2; i++) {
		k = keys[i];
		h = rfs_flow_hash(&k, rfs_test_seed);
		for (bit = 0; bit < offsetof(struct rfs_flow_key, _pad) * 8; bit++) {
			if (!rfs_test_bit_used(&k, bit))
				continue;
			m = k;
			((unsigned char *)&m)[bit / 8] ^= 1u << (bit % 8);
			if (rfs_flow_hash(&m, rfs_test_seed) == h) {
				print_error("%s key: flipping bit %u left the hash alone\n",
					    k.is_v6 ? "v6" : "v4", bit);
				fail();
			}
		}
		m = k;
		m._pad = 0xffff;
		assert_int_equal(rfs_flow_hash(&m, rfs_test_seed), h);
	}
}

/* Loopback peers, and the addresses either side of them that are not. */
static void rfs_test_loopback(void **state)
{
	static const struct {
		int v6;
		const char *peer;
		int loopback;
	} cases[] = {
		{ 0, "127.0.0.1", 1 },
		{ 0, "127.255.255.254", 1 },
		{ 0, "126.255.255.255", 0 },
		{ 0, "128.0.0.1", 0 },
		{ 0, "1.0.0.127", 0 },
		{ 0, "198.18.0.1", 0 },
		{ 1, "::1", 1 },
		{ 1, "::2", 0 },
		{ 1, "1::1", 0 },
		{ 1, "::100:0:0:1", 0 },
		{ 1, "2001:db8::1", 0 },
	};
	struct rfs_flow_key k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&k, 0, sizeof(k));
		k.is_v6 = cases[i].v6;
		rfs_test_addr(cases[i].v6, cases[i].peer, k.peer);
		if (rfs_flow_key_loopback(&k) != cases[i].loopback)
			fail_msg("peer %s: loopback %d, want %d", cases[i].peer,
				 rfs_flow_key_loopback(&k), cases[i].loopback);
	}
	/* ::ffff:127.0.0.1 is folded to IPv4 first (rfs_flow_key_normalise) */
	memset(&k, 0, sizeof(k));
	k.is_v6 = 1;
	rfs_test_addr(1, "::ffff:127.0.0.1", k.peer);
	rfs_test_addr(1, "::ffff:127.0.0.1", k.local);
	rfs_flow_key_normalise(&k);
	assert_true(rfs_flow_key_loopback(&k));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_murmur3_vectors),
		cmocka_unit_test(rfs_test_flow_hash_layout),
		cmocka_unit_test(rfs_test_flow_hash_layout_v6),
		cmocka_unit_test(rfs_test_direction),
		cmocka_unit_test(rfs_test_v4mapped),
		cmocka_unit_test(rfs_test_normalise_keeps_v6),
		cmocka_unit_test(rfs_test_normalise_keeps_v4),
		cmocka_unit_test(rfs_test_proto),
		cmocka_unit_test(rfs_test_ports_swapped),
		cmocka_unit_test(rfs_test_seed_changes),
		cmocka_unit_test(rfs_test_stable),
		cmocka_unit_test(rfs_test_every_field),
		cmocka_unit_test(rfs_test_loopback),
	};

	return cmocka_run_group_tests_name("rfs_hash", tests, NULL, NULL);
}
