// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfs_kjudge() (daemon/lib/rfs_features.c): what each kernel
 * feature means for the in-order rule, over every feature set; and of
 * rfs_kfeat_set(), the names RFS_TEST_FEATURES fakes a kernel with.  The rule (rfs_features.c's
 * comment, include/rfs_order.h): only a place that holds frames where
 * the delivery proof can't see them breaks the order (a cpumap GRO stage
 * it can't read, or no BTF to tell); every missing hook that only
 * withholds a proof degrades.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "rfs_dp.h"

/* What this project's CI machine (6.18) offers. */
static struct rfs_kfeatures rfs_test_full(void)
{
	struct rfs_kfeatures f = {
		.btf = true, .tp_sock_len = true, .kprobes = false,
		.fentry = false, .func_ret = true, .sockops_state = true,
		.tp_enqueue = true, .tp_sock_full = true,
		.tp_sock_full_skb = true, .tp_kthread = true, .kthread_data = true, .task_state = true,
		.cpumap_prog = true, .frame_meta = true,
		.cpumap_gro = RFS_GRO_READABLE, .hz = 250,
	};

	return f;
}

static const struct rfs_feat_line *rfs_test_line(const struct rfs_feat_report *r,
						 const char *name)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->line[i].name, name))
			return &r->line[i];
	fail_msg("no line '%s'", name);
	return NULL;
}

static void rfs_test_full_kernel(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();
	struct rfs_feat_report r;
	int i;

	rfs_kjudge(&f, &r);
	assert_true(r.order_kept);
	for (i = 0; i < r.n; i++)
		assert_int_equal(r.line[i].level, RFS_FEAT_OK);
	assert_string_equal(rfs_test_line(&r, "socket_hooks")->value,
			    "tp_btf/sock_recv_length");
	assert_string_equal(rfs_test_line(&r, "cpumap_gro")->value, "gro_node");
}

/* Debian 12's 6.1 as the guest's FACT lines show it: no GRO stage, no
 * sock_*_length tracepoints, BPF trampolines and kprobes: fexit hooks. */
static void rfs_test_debian_6_1(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();
	struct rfs_feat_report r;

	f.cpumap_gro = RFS_GRO_NONE;
	f.tp_sock_len = false;
	f.kprobes = true;
	f.fentry = true;
	f.func_ret = true;
	rfs_kjudge(&f, &r);
	assert_true(r.order_kept);
	assert_int_equal(rfs_test_line(&r, "socket_hooks")->level, RFS_FEAT_OK);
	assert_string_equal(rfs_test_line(&r, "socket_hooks")->value, "fexit");
	assert_int_equal(rfs_test_line(&r, "cpumap_gro")->level, RFS_FEAT_OK);
	assert_string_equal(rfs_test_line(&r, "cpumap_gro")->value, "none");
}

/* The socket hooks' order of preference, as rfsd's auto mode picks them
 * (rfs_dp.c): tracepoints, then fexit (trampolines and
 * bpf_get_func_ret: 5.15 has only the first), then kprobes, then none. */
static void rfs_test_socket_hooks_order(void **state)
{
	static const struct {
		bool tp, fentry, func_ret, kprobes;
		const char *want;
		enum rfs_feat_level level;
	} c[] = {
		{ true, true, true, true, "tp_btf/sock_recv_length", RFS_FEAT_OK },
		{ true, false, false, false, "tp_btf/sock_recv_length", RFS_FEAT_OK },
		{ false, true, true, true, "fexit", RFS_FEAT_OK },
		{ false, true, true, false, "fexit", RFS_FEAT_OK },
		{ false, true, false, true, "kprobe", RFS_FEAT_OK },
		{ false, false, true, true, "kprobe", RFS_FEAT_OK },
		{ false, true, false, false, "none", RFS_FEAT_DEGRADED },
		{ false, false, false, false, "none", RFS_FEAT_DEGRADED },
	};
	struct rfs_feat_report r;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct rfs_kfeatures f = rfs_test_full();

		f.tp_sock_len = c[i].tp;
		f.fentry = c[i].fentry;
		f.func_ret = c[i].func_ret;
		f.kprobes = c[i].kprobes;
		rfs_kjudge(&f, &r);
		assert_string_equal(rfs_test_line(&r, "socket_hooks")->value,
				    c[i].want);
		assert_int_equal(rfs_test_line(&r, "socket_hooks")->level,
				 c[i].level);
	}
}

/*
 * Every combination of the boolean features with each GRO finding: the
 * order is kept exactly when there is BTF and no unreadable GRO stage,
 * and whatever else is missing is at worst degraded.
 */
static void rfs_test_every_set(void **state)
{
	static const enum rfs_cpumap_gro gros[] = {
		RFS_GRO_NONE, RFS_GRO_READABLE, RFS_GRO_UNREADABLE,
	};
	bool *bits[13];
	struct rfs_kfeatures f;
	struct rfs_feat_report r;
	unsigned int m, g, b, n_unsafe_sets = 0;
	int i;

	for (g = 0; g < 3; g++) {
		for (m = 0; m < (1u << 13); m++) {
			memset(&f, 0, sizeof(f));
			bits[0] = &f.btf; bits[1] = &f.tp_sock_len;
			bits[2] = &f.kprobes; bits[3] = &f.fentry;
			bits[4] = &f.sockops_state; bits[5] = &f.tp_enqueue;
			bits[6] = &f.tp_kthread; bits[7] = &f.kthread_data;
			bits[8] = &f.task_state; bits[9] = &f.cpumap_prog;
			bits[10] = &f.frame_meta; bits[11] = &f.func_ret;
			bits[12] = &f.tp_sock_full;
			for (b = 0; b < 13; b++)
				*bits[b] = m & (1u << b);
			f.cpumap_gro = gros[g];
			f.hz = m & 1 ? 1000 : 0;
			rfs_kjudge(&f, &r);
			assert_true(r.n > 0 && r.n < RFS_FEAT_MAX);
			assert_int_equal(r.order_kept,
					 f.btf && f.cpumap_gro != RFS_GRO_UNREADABLE);
			for (i = 0; i < r.n; i++) {
				const struct rfs_feat_line *l = &r.line[i];

				assert_true(l->why[0] && l->value[0]);
				if (l->level != RFS_FEAT_UNSAFE)
					continue;
				assert_true(!strcmp(l->name, "btf") ||
					    !strcmp(l->name, "cpumap_gro"));
			}
			n_unsafe_sets += !r.order_kept;
		}
	}
	/* btf off (half of each GRO value's sets), or GRO unreadable */
	assert_int_equal(n_unsafe_sets, 4096 * 2 + 8192);
}

/* Missing hooks that only withhold proofs: degraded, named. */
static void rfs_test_degraded(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();
	struct rfs_feat_report r;

	f.tp_kthread = false;
	f.tp_sock_len = false;
	f.kprobes = false;
	f.frame_meta = false;
	f.tp_sock_full = false;
	f.hz = 0;
	rfs_kjudge(&f, &r);
	assert_true(r.order_kept);
	assert_int_equal(rfs_test_line(&r, "delivery_proof")->level,
			 RFS_FEAT_DEGRADED);
	assert_int_equal(rfs_test_line(&r, "socket_hooks")->level,
			 RFS_FEAT_DEGRADED);
	assert_string_equal(rfs_test_line(&r, "socket_hooks")->value, "none");
	assert_int_equal(rfs_test_line(&r, "cpumap_meta")->level,
			 RFS_FEAT_DEGRADED);
	assert_int_equal(rfs_test_line(&r, "hz")->level, RFS_FEAT_DEGRADED);
	assert_int_equal(rfs_test_line(&r, "early_drop")->level,
			 RFS_FEAT_DEGRADED);
	assert_string_equal(rfs_test_line(&r, "early_drop")->value, "none");
}

/* Early drop by what the tracepoint passes: the refused skb (every UDP
 * socket's flows), the socket alone (connected ones only), nothing. */
static void rfs_test_early_drop(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();
	struct rfs_feat_report r;

	rfs_kjudge(&f, &r);
	assert_int_equal(rfs_test_line(&r, "early_drop")->level, RFS_FEAT_OK);
	assert_non_null(strstr(rfs_test_line(&r, "early_drop")->why,
			       "connected or not"));
	f.tp_sock_full_skb = false;
	rfs_kjudge(&f, &r);
	assert_int_equal(rfs_test_line(&r, "early_drop")->level,
			 RFS_FEAT_DEGRADED);
	assert_string_equal(rfs_test_line(&r, "early_drop")->value,
			    "connected only");
	f.tp_sock_full = false;
	f.tp_sock_full_skb = true;	/* no tracepoint: its arguments don't count */
	rfs_kjudge(&f, &r);
	assert_string_equal(rfs_test_line(&r, "early_drop")->value, "none");
}

static void rfs_test_iface(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();
	struct rfs_if_facts native = { .native = true, .gro_flush_timeout = 0 };
	struct rfs_if_facts generic = { .native = false, .gro_flush_timeout = -1 };
	struct rfs_feat_report r;

	rfs_kjudge(&f, &r);
	rfs_kjudge_iface(&f, &native, &r);
	assert_true(r.order_kept);
	assert_int_equal(rfs_test_line(&r, "xdp_mode")->level, RFS_FEAT_OK);
	assert_string_equal(rfs_test_line(&r, "gro_flush_timeout")->value, "0 ns");

	rfs_kjudge(&f, &r);
	rfs_kjudge_iface(&f, &generic, &r);
	assert_true(r.order_kept);
	assert_int_equal(rfs_test_line(&r, "xdp_mode")->level, RFS_FEAT_DEGRADED);
	assert_int_equal(rfs_test_line(&r, "gro_flush_timeout")->level,
			 RFS_FEAT_DEGRADED);
}

/* The names a test fakes a kernel with (RFS_TEST_FEATURES). */
static void rfs_test_set_names(void **state)
{
	struct rfs_kfeatures f = rfs_test_full();

	assert_int_equal(rfs_kfeat_set(&f, "cpumap_gro", "unreadable"), 0);
	assert_int_equal(f.cpumap_gro, RFS_GRO_UNREADABLE);
	assert_int_equal(rfs_kfeat_set(&f, "cpumap_gro", "none"), 0);
	assert_int_equal(f.cpumap_gro, RFS_GRO_NONE);
	assert_int_equal(rfs_kfeat_set(&f, "tp_kthread", "0"), 0);
	assert_false(f.tp_kthread);
	assert_int_equal(rfs_kfeat_set(&f, "kprobes", "1"), 0);
	assert_true(f.kprobes);
	assert_int_equal(rfs_kfeat_set(&f, "hz", "100"), 0);
	assert_int_equal(f.hz, 100);
	assert_int_not_equal(rfs_kfeat_set(&f, "cpumap_gro", "maybe"), 0);
	assert_int_not_equal(rfs_kfeat_set(&f, "tp_kthread", "yes"), 0);
	assert_int_not_equal(rfs_kfeat_set(&f, "hz", "fast"), 0);
	assert_int_not_equal(rfs_kfeat_set(&f, "no_such_feature", "1"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_full_kernel),
		cmocka_unit_test(rfs_test_debian_6_1),
		cmocka_unit_test(rfs_test_socket_hooks_order),
		cmocka_unit_test(rfs_test_every_set),
		cmocka_unit_test(rfs_test_degraded),
		cmocka_unit_test(rfs_test_early_drop),
		cmocka_unit_test(rfs_test_iface),
		cmocka_unit_test(rfs_test_set_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
