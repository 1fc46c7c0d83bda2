// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/rfsd/config.c, the rfsd.conf parser: what it accepts, and
 * that each bad value gets the message for what is wrong with it
 * ("sock_flow_entries = 12abc" is not a number, not "not a power of two").
 *
 * config.c and node.c (the config on a node: which section picks a link,
 * what a cpus value means there) are compiled into this test (they are
 * rfsd's, not the library's); the Makefile rebuilds the test when they
 * change.  Each case goes through
 * rfsd_config_load() on a temporary file, as rfsd reads it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../daemon/rfsd/config.c"
#include "../../daemon/rfsd/node.c"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static char rfs_test_path[64];
static bool rfs_test_unsafe = true;	/* --unsafe-noguard */

static int rfs_test_load(const char *text, struct rfsd_config *cfg,
			 char *err)
{
	FILE *f;
	int fd;

	snprintf(rfs_test_path, sizeof(rfs_test_path),
		 "/tmp/rfs-test-config.XXXXXX");
	fd = mkstemp(rfs_test_path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) < 0, 0);
	assert_int_equal(fclose(f), 0);
	fd = rfsd_config_load(rfs_test_path, true, rfs_test_unsafe, cfg, err);
	unlink(rfs_test_path);
	return fd;
}

static void rfs_test_good(void **state)
{
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN];
	const struct rfsd_iface_cfg *ifc;

	assert_int_equal(rfs_test_load(
		"; comment\n"
		"[global]\n"
		"sock_flow_entries = 0065536\n"
		"socket = /run/x.sock\n"
		"metrics_listen = [::1]:9464\n"
		"\n"
		"[interface eth1]\n"
		"  cpus = 0-3,6\n"
		"flow_cnt=64\n"
		"mode = native\n"
		"[interface eth2]\n"
		"flow_cnt = 1048576\n", &cfg, err), 0);
	assert_int_equal(cfg.sock_flow_entries, 65536);
	/* not set: the default */
	assert_int_equal(cfg.leaving_warn_s,
			 RFSD_LEAVING_WARN_DEFAULT);
	assert_true(cfg.early_drop);
	assert_string_equal(cfg.socket, "/run/x.sock");
	assert_string_equal(cfg.metrics_listen, "[::1]:9464");
	assert_null(cfg.pin_dir);
	assert_int_equal(cfg.n_ifs, 2);
	ifc = rfsd_config_iface(&cfg, "eth1");
	assert_non_null(ifc);
	assert_int_equal(ifc->flow_cnt, 64);
	assert_int_equal(ifc->mode, RFS_XDP_NATIVE);
	assert_string_equal(ifc->cpus, "0-3,6");
	ifc = rfsd_config_iface(&cfg, "eth2");
	assert_non_null(ifc);
	assert_int_equal(ifc->flow_cnt, 1048576);
	rfsd_config_free(&cfg);
}

/* Every numeric key, every way to get it wrong. */
/* leaving_warn_seconds: its value, 0 (never warn) included. */
static void rfs_test_leaving_warn(void **state)
{
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN];

	assert_int_equal(rfs_test_load("[global]\nleaving_warn_seconds = 30\n",
				       &cfg, err), 0);
	assert_int_equal(cfg.leaving_warn_s, 30);
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[global]\nleaving_warn_seconds = 0\n",
				       &cfg, err), 0);
	assert_int_equal(cfg.leaving_warn_s, 0);
	rfsd_config_free(&cfg);
}

/* early_drop: on unless the config says no; anything but a boolean is
 * refused at its line. */
static void rfs_test_early_drop(void **state)
{
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN];

	assert_int_equal(rfs_test_load("[global]\nearly_drop = no\n", &cfg,
				       err), 0);
	assert_false(cfg.early_drop);
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[global]\nearly_drop = yes\n", &cfg,
				       err), 0);
	assert_true(cfg.early_drop);
	rfsd_config_free(&cfg);
	assert_int_not_equal(rfs_test_load("[global]\nearly_drop = off\n",
					   &cfg, err), 0);
	assert_non_null(strstr(err, "early_drop 'off' is not yes or no"));
}

static void rfs_test_numbers(void **state)
{
	static const struct {
		const char *text;
		const char *msg;	/* after "can't parse config 'PATH:" */
	} t[] = {
		{ "[global]\nleaving_warn_seconds = 10s\n",
		  "2': leaving_warn_seconds '10s' is not a number" },
		{ "[global]\nleaving_warn_seconds = 86401\n",
		  "2': leaving_warn_seconds '86401' is out of range (0..86400)" },
		{ "[global]\nleaving_warn_seconds = 99999999999999999999\n",
		  "2': leaving_warn_seconds '99999999999999999999' is out of range (0..86400)" },
		{ "[global]\nleaving_warn_seconds = 1\nleaving_warn_seconds = 2\n",
		  "3': 'leaving_warn_seconds' set twice" },
		{ "[global]\nsock_flow_entries = 12abc\n",
		  "2': sock_flow_entries '12abc' is not a number" },
		{ "[global]\nsock_flow_entries = -5\n",
		  "2': sock_flow_entries '-5' is not a number" },
		{ "[global]\nsock_flow_entries = +256\n",
		  "2': sock_flow_entries '+256' is not a number" },
		{ "[global]\nsock_flow_entries = 0x100\n",
		  "2': sock_flow_entries '0x100' is not a number" },
		{ "[global]\nsock_flow_entries = 1 024\n",
		  "2': sock_flow_entries '1 024' is not a number" },
		{ "[global]\nsock_flow_entries =\n",
		  "2': sock_flow_entries '' is not a number" },
		{ "[global]\nsock_flow_entries = 99999999999999999999999\n",
		  "2': sock_flow_entries '99999999999999999999999' is out of range (256..16777216)" },
		{ "[global]\nsock_flow_entries = 1073741824\n",
		  "2': sock_flow_entries '1073741824' is out of range (256..16777216)" },
		{ "[global]\nsock_flow_entries = 128\n",
		  "2': sock_flow_entries '128' is out of range (256..16777216)" },
		{ "[global]\nsock_flow_entries = 1000\n",
		  "2': sock_flow_entries '1000' is not a power of two (256..16777216)" },
		{ "[global]\nsock_flow_entries = 0\n",
		  "2': sock_flow_entries '0' is not a power of two (256..16777216)" },
		{ "[interface eth0]\nflow_cnt = 64k\n",
		  "2': flow_cnt '64k' is not a number" },
		{ "[interface eth0]\nflow_cnt = 1e3\n",
		  "2': flow_cnt '1e3' is not a number" },
		{ "[interface eth0]\nflow_cnt = 4096.0\n",
		  "2': flow_cnt '4096.0' is not a number" },
		{ "[interface eth0]\nflow_cnt = 100\n",
		  "2': flow_cnt '100' is not a power of two (64..1048576)" },
		{ "[interface eth0]\nflow_cnt = 32\n",
		  "2': flow_cnt '32' is out of range (64..1048576)" },
		{ "[interface eth0]\nflow_cnt = 4294967296\n",
		  "2': flow_cnt '4294967296' is out of range (64..1048576)" },
		/* cpumap_kthread_sched: not a number vs out of range */
		{ "[global]\ncpumap_kthread_sched = fifo:x\n",
		  "2': cpumap_kthread_sched 'fifo:x': 'x' is not a number (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = fifo:\n",
		  "2': cpumap_kthread_sched 'fifo:': '' is not a number (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = nice:+5\n",
		  "2': cpumap_kthread_sched 'nice:+5': '+5' is not a number (nice:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = nice:-5x\n",
		  "2': cpumap_kthread_sched 'nice:-5x': '-5x' is not a number (nice:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = nice:--5\n",
		  "2': cpumap_kthread_sched 'nice:--5': '--5' is not a number (nice:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = fifo:0\n",
		  "2': cpumap_kthread_sched 'fifo:0' is out of range (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = fifo:100\n",
		  "2': cpumap_kthread_sched 'fifo:100' is out of range (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = fifo:-1\n",
		  "2': cpumap_kthread_sched 'fifo:-1' is out of range (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = fifo:99999999999999999999\n",
		  "2': cpumap_kthread_sched 'fifo:99999999999999999999' is out of range (fifo:1..99)" },
		{ "[global]\ncpumap_kthread_sched = nice:-21\n",
		  "2': cpumap_kthread_sched 'nice:-21' is out of range (nice:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = nice:20\n",
		  "2': cpumap_kthread_sched 'nice:20' is out of range (nice:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = batch:20\n",
		  "2': cpumap_kthread_sched 'batch:20' is out of range (batch:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = batch:-21\n",
		  "2': cpumap_kthread_sched 'batch:-21' is out of range (batch:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = batch:\n",
		  "2': cpumap_kthread_sched 'batch:': '' is not a number (batch:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = batch:x1\n",
		  "2': cpumap_kthread_sched 'batch:x1': 'x1' is not a number (batch:-20..19)" },
		{ "[global]\ncpumap_kthread_sched = nice:-4294967295\n",
		  "2': cpumap_kthread_sched 'nice:-4294967295' is out of range (nice:-20..19)" },
	};
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN], want[RFSD_CONFIG_ERR_LEN];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		int r = rfs_test_load(t[i].text, &cfg, err);

		snprintf(want, sizeof(want), "can't parse config '%s:%s",
			 rfs_test_path, t[i].msg);
		if (!r || strcmp(err, want)) {
			print_error("config:\n%swant: %s\ngot:  %s (%d)\n",
				    t[i].text, want, r ? err : "accepted", r);
			fail();
		}
		/* a failed load leaves nothing to free */
		assert_null(cfg.ifs);
	}
}

static void rfs_test_other_errors(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} t[] = {
		{ "x = 1\n", "1': key 'x' outside a section" },
		{ "[global]\nbogus = 1\n", "2': unknown key 'bogus' in [global]" },
		{ "[glob]\n", "1': unknown section [glob]" },
		{ "[interface a/b]\n", "1': bad interface name 'a/b'" },
		{ "[interface ..]\n", "1': bad interface name '..'" },
		{ "[interface 0123456789abcdef]\n",
		  "1': bad interface name '0123456789abcdef'" },
		{ "[interface e]\n[interface e]\n",
		  "2': [interface e] appears twice" },
		{ "[interface e]\ncpus = 0-x\n", "2': cpus '0-x' is not a CPU list" },
		{ "[interface e]\ncpus = 300\n", "2': cpus '300': CPUs go up to 255" },
		{ "[interface e]\nmode = fast\n",
		  "2': mode 'fast' is not auto, native or generic" },
		{ "[global]\nsocket = x\n", "2': socket 'x' is not an absolute path" },
		{ "[global]\nsocket = /a\nsocket = /b\n", "3': 'socket' set twice" },
		{ "[global]\nnot a key\n", "2': syntax error" },
		/* numeric addresses only, a port, brackets around IPv6 */
		{ "[global]\nmetrics_listen = localhost:9464\n",
		  "2': metrics_listen 'localhost:9464' is not IPV4:PORT or [IPV6]:PORT" },
		{ "[global]\nmetrics_listen = 127.0.0.1\n",
		  "2': metrics_listen '127.0.0.1' is not" },
		{ "[global]\nmetrics_listen = 127.0.0.1:0\n",
		  "2': metrics_listen '127.0.0.1:0' is not" },
		{ "[global]\nmetrics_listen = 127.0.0.1:65536\n",
		  "2': metrics_listen '127.0.0.1:65536' is not" },
		{ "[global]\nmetrics_listen = 127.0.0.1:94x\n",
		  "2': metrics_listen '127.0.0.1:94x' is not" },
		{ "[global]\nmetrics_listen = ::1:9464\n",
		  "2': metrics_listen '::1:9464' is not" },
		{ "[global]\nmetrics_listen = [::1]9464\n",
		  "2': metrics_listen '[::1]9464' is not" },
		{ "[global]\nmetrics_listen = [127.0.0.1]:9464\n",
		  "2': metrics_listen '[127.0.0.1]:9464' is not" },
		{ "[global]\nmetrics_listen = :9464\n",
		  "2': metrics_listen ':9464' is not" },
		{ "[global]\nmetrics_listen = 127.0.0.1:1\nmetrics_listen = 127.0.0.1:2\n",
		  "3': 'metrics_listen' set twice" },
		{ "[interface e]\nnoguard = maybe\n",
		  "2': noguard 'maybe' is not yes or no" },
		{ "[interface e]\nnoguard = no\nnoguard = no\n",
		  "3': 'noguard' set twice" },
		{ "[global]\nnoguard = yes\n",
		  "2': unknown key 'noguard' in [global]" },
		{ "[global]\ncpumap_kthread_sched = rr:1\n",
		  "2': cpumap_kthread_sched 'rr:1' is not default (fifo:1), kernel, nice:N (-20..19), batch:N (-20..19) or fifo:N (1..99)" },
		{ "[global]\ncpumap_kthread_sched = batch\n",
		  "2': cpumap_kthread_sched 'batch' is not default (fifo:1), kernel, nice:N" },
		{ "[global]\ncpumap_kthread_sched = FIFO:1\n",
		  "2': cpumap_kthread_sched 'FIFO:1' is not default (fifo:1), kernel, nice:N" },
		{ "[global]\ncpumap_kthread_sched = fifo:1\ncpumap_kthread_sched = nice:0\n",
		  "3': 'cpumap_kthread_sched' set twice" },
		/* group names as useradd takes them */
		{ "[global]\nadmin_group = Admins\n",
		  "2': admin_group 'Admins' is not a group name" },
		{ "[global]\nsocket_group = 1rfs\n",
		  "2': socket_group '1rfs' is not a group name" },
		{ "[global]\nadmin_group = a b\n",
		  "2': admin_group 'a b' is not a group name" },
		{ "[global]\nadmin_group = a\nadmin_group = b\n",
		  "3': 'admin_group' set twice" },
		/* flow table budgets: a size, 1M..1024G */
		{ "[global]\ntable_budget_iface = 12abc\n",
		  "2': table_budget_iface '12abc' is not a size" },
		{ "[global]\ntable_budget_iface = 64m\n",
		  "2': table_budget_iface '64m' is not a size" },
		{ "[global]\ntable_budget_total = 512K\n",
		  "2': table_budget_total '512K' is out of range (1M..1024G)" },
		{ "[global]\ntable_budget_total = 2048G\n",
		  "2': table_budget_total '2048G' is out of range (1M..1024G)" },
		{ "[global]\ntable_budget_total = 99999999999\n",
		  "2': table_budget_total '99999999999' is out of range" },
		/* pattern sections, exclude, cpus words */
		{ "[interface !eth*]\n",
		  "1': bad interface pattern '!eth*' in [interface !eth*]" },
		{ "[interface eth* a/b]\n", "1': bad interface pattern 'eth* a/b'" },
		{ "[interface eth* 0123456789abcdef]\n",
		  "1': bad interface pattern" },
		{ "[interface eth* !]\n", "1': bad interface pattern" },
		{ "[interface e* f*]\n[interface e* f*]\n",
		  "2': [interface e* f*] appears twice" },
		{ "[global]\nexclude =\n", "2': exclude '' is not interface name patterns" },
		{ "[global]\nexclude = a:b\n", "2': exclude 'a:b' is not interface name patterns" },
		{ "[interface e*]\ncpus = isolated x\n", "2': cpus 'isolated x' is not a CPU list" },
		{ "[interface e*]\ncpus = !\n", "2': cpus '!' is not a CPU list" },
		{ "[interface e*]\ncpus = 0-3 !0-3\n", "2': cpus '0-3 !0-3' leaves no CPU" },
		{ "[interface e*]\ncpus = all !999\n", "2': cpus 'all !999': CPUs go up to" },
		{ "[interface e*]\nbogus = 1\n",
		  "2': unknown key 'bogus' in [interface e*] (cpus, flow_cnt, mode, noguard)" },
	};
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN], want[RFSD_CONFIG_ERR_LEN];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		int r = rfs_test_load(t[i].text, &cfg, err);

		snprintf(want, sizeof(want), "can't parse config '%s:%s",
			 rfs_test_path, t[i].msg);
		if (!r || strncmp(err, want, strlen(want))) {
			print_error("config:\n%swant: %s...\ngot:  %s (%d)\n",
				    t[i].text, want, r ? err : "accepted", r);
			fail();
		}
	}
}

/* noguard is parsed per interface, and refused without --unsafe-noguard
 * by a message that names the interface, the file and the option. */
/* who may use the control socket, and who may change things */
static void rfs_test_groups(void **state)
{
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN];

	assert_int_equal(rfs_test_load("[global]\n", &cfg, err), 0);
	assert_null(cfg.socket_group);
	assert_null(cfg.admin_group);
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[global]\nsocket_group = _rfs-ro\n"
				       "admin_group = ops$\n", &cfg, err), 0);
	assert_string_equal(cfg.socket_group, "_rfs-ro");
	assert_string_equal(cfg.admin_group, "ops$");
	rfsd_config_free(&cfg);
}

static void rfs_test_budgets(void **state)
{
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN];

	assert_int_equal(rfs_test_load("[global]\n", &cfg, err), 0);
	assert_true(!cfg.budget_iface && !cfg.budget_total);
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[global]\ntable_budget_iface = 256M\n"
				       "table_budget_total = 1G\n", &cfg, err), 0);
	assert_true(cfg.budget_iface == 256ull << 20);
	assert_true(cfg.budget_total == 1ull << 30);
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[global]\ntable_budget_iface = 1048576\n",
				       &cfg, err), 0);
	assert_true(cfg.budget_iface == 1ull << 20);
	rfsd_config_free(&cfg);
}

/* A line longer than inih's buffer is an error at its line, and the
 * first error is the one reported; a byte order mark is not a line. */
static void rfs_test_long_line(void **state)
{
	char text[8192], err[RFSD_CONFIG_ERR_LEN];
	struct rfsd_config cfg;
	int n;

	n = snprintf(text, sizeof(text), "[global]\n# ");
	memset(text + n, 'x', 6000);
	snprintf(text + n + 6000, sizeof(text) - n - 6000,
		 "\nsocket = relative\n");
	assert_int_equal(rfs_test_load(text, &cfg, err), -EINVAL);
	assert_non_null(strstr(err, ":2': line too long (max "));
	assert_int_equal(rfs_test_load("[global]\nsocket = rel\n# x\npin_dir = x\n",
				       &cfg, err), -EINVAL);
	assert_non_null(strstr(err, ":2': socket 'rel' is not an absolute path"));
	assert_int_equal(rfs_test_load("\xef\xbb\xbf[global]\nsocket = /a\n", &cfg,
				       err), 0);
	assert_string_equal(cfg.socket, "/a");
	rfsd_config_free(&cfg);
}

static void rfs_test_noguard(void **state)
{
	static const char text[] = "[interface a]\nnoguard = yes\n"
				   "[interface b]\nnoguard = no\n"
				   "[interface c]\n";
	char err[RFSD_CONFIG_ERR_LEN], want[128];
	struct rfsd_config cfg;

	assert_int_equal(rfs_test_load(text, &cfg, err), 0);
	assert_true(rfsd_config_iface(&cfg, "a")->noguard);
	assert_false(rfsd_config_iface(&cfg, "b")->noguard);
	assert_false(rfsd_config_iface(&cfg, "c")->noguard);
	assert_string_equal(err, "");
	rfsd_config_free(&cfg);
	/* rfsd_config_load() refuses it without --unsafe-noguard */
	rfs_test_unsafe = false;
	assert_int_equal(rfs_test_load(text, &cfg, err), -EPERM);
	snprintf(want, sizeof(want),
		 "can't honour 'noguard = yes' in [interface a] of '%s'",
		 rfs_test_path);
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, "--unsafe-noguard"));
	assert_int_equal(cfg.n_ifs, 0);

	/* no interface asks: nothing to refuse */
	assert_int_equal(rfs_test_load("[interface b]\nnoguard = no\n", &cfg,
				       err), 0);
	rfs_test_unsafe = true;
	rfsd_config_free(&cfg);
}

/* cpumap_kthread_sched: every form and both ends of each range, and the
 * default, SCHED_FIFO 1, when the key is absent or says default; also
 * without a config file at all. */
static void rfs_test_ksched(void **state)
{
	static const struct {
		const char *v;
		enum rfsd_ksched_kind kind;
		int prio;
	} t[] = {
		{ "default", RFSD_KSCHED_FIFO, 1 },
		{ "kernel", RFSD_KSCHED_KERNEL, 0 },
		{ "nice:-20", RFSD_KSCHED_NICE, -20 },
		{ "nice:-5", RFSD_KSCHED_NICE, -5 },
		{ "nice:0", RFSD_KSCHED_NICE, 0 },
		{ "nice:-0", RFSD_KSCHED_NICE, 0 },
		{ "nice:19", RFSD_KSCHED_NICE, 19 },
		{ "fifo:1", RFSD_KSCHED_FIFO, 1 },
		{ "fifo:099", RFSD_KSCHED_FIFO, 99 },
		{ "batch:0", RFSD_KSCHED_BATCH, 0 },
		{ "batch:-20", RFSD_KSCHED_BATCH, -20 },
		{ "batch:19", RFSD_KSCHED_BATCH, 19 },
	};
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN], text[128], name[32];
	unsigned int i;

	assert_int_equal(rfs_test_load("[global]\nsocket = /a\n", &cfg, err), 0);
	assert_int_equal(cfg.ksched.kind, RFSD_KSCHED_FIFO);
	assert_int_equal(cfg.ksched.prio, 1);
	rfsd_config_free(&cfg);
	assert_int_equal(rfsd_config_load("/nonexistent/rfsd.conf", false, false,
					  &cfg, err), 0);
	assert_int_equal(cfg.ksched.kind, RFSD_KSCHED_FIFO);
	assert_int_equal(cfg.ksched.prio, 1);
	rfsd_config_free(&cfg);
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		snprintf(text, sizeof(text),
			 "[global]\ncpumap_kthread_sched = %s\n", t[i].v);
		if (rfs_test_load(text, &cfg, err)) {
			print_error("'%s' refused: %s\n", t[i].v, err);
			fail();
		}
		assert_int_equal(cfg.ksched.kind, t[i].kind);
		assert_int_equal(cfg.ksched.prio, t[i].prio);
		/* the name round-trips to what was parsed */
		rfsd_ksched_name(&cfg.ksched, name, sizeof(name));
		if (t[i].v[5] != '0' && strcmp(t[i].v, "nice:-0") &&
		    strcmp(t[i].v, "default"))
			assert_string_equal(name, t[i].v);
		rfsd_config_free(&cfg);
	}
}

/* Pattern sections: which one picks a link, and why one is skipped. */
static void rfs_test_patterns(void **state)
{
	static const struct {
		const char *name;
		unsigned short type;
		unsigned int flags;
		bool dflt;
		const char *section;	/* NULL: none picks it */
		const char *why;	/* NULL: attached */
	} t[] = {
		{ "eth1", ARPHRD_ETHER, 0, false, "[interface eth1]", NULL },
		/* a named section wins over an earlier pattern */
		{ "ens3", ARPHRD_ETHER, 0, false, "[interface ens3]", NULL },
		{ "ens4", ARPHRD_ETHER, 0, false, "[interface ens* eth* !ens9]", NULL },
		{ "eth7", ARPHRD_ETHER, 0, false, "[interface ens* eth* !ens9]", NULL },
		/* vetoed by its own section's '!': the next one may take it */
		{ "ens9", ARPHRD_ETHER, 0, false, NULL, "no section" },
		{ "bond0", ARPHRD_ETHER, 0, true, "[interface default-route]", NULL },
		{ "bond1", ARPHRD_ETHER, 0, false, NULL, "no section" },
		/* a pattern never picks what rfsd can't steer */
		{ "eth-lo", ARPHRD_ETHER, IFF_LOOPBACK, false,
		  "[interface ens* eth* !ens9]", "loopback" },
		{ "eth-tun", ARPHRD_NONE, 0, false,
		  "[interface ens* eth* !ens9]", "not Ethernet" },
		{ "eth-veth9", ARPHRD_ETHER, 0, false,
		  "[interface ens* eth* !ens9]", "excluded" },
		{ "vethab", ARPHRD_ETHER, 0, true,
		  "[interface default-route]", "excluded" },
		/* but a name is a name */
		{ "eth-veth1", ARPHRD_ETHER, 0, false, "[interface eth-veth1]", NULL },
	};
	const struct rfsd_iface_cfg *ic;
	struct rfsd_config cfg;
	char err[RFSD_CONFIG_ERR_LEN], label[300];
	struct rfsd_link l;
	const char *why;
	unsigned int i;

	assert_int_equal(rfs_test_load(
		"[global]\nexclude = veth* *-veth?\n"
		"[interface ens* eth* !ens9]\ncpus = 1\n"
		"[interface eth1]\n[interface ens3]\n[interface eth-veth1]\n"
		"[interface default-route]\n", &cfg, err), 0);
	assert_true(rfsd_config_wants_routes(&cfg));
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		memset(&l, 0, sizeof(l));
		snprintf(l.name, sizeof(l.name), "%s", t[i].name);
		l.type = t[i].type;
		l.flags = t[i].flags;
		l.default_route = t[i].dflt;
		why = rfsd_config_match(&cfg, &l, &ic);
		if (t[i].section)
			assert_non_null(ic);
		if (ic)
			rfsd_iface_cfg_label(ic, label, sizeof(label));
		if ((t[i].section ? strcmp(label, t[i].section) : !!ic) ||
		    (t[i].why ? !why || !strstr(why, t[i].why) : !!why)) {
			print_error("%s: got %s, %s\n", t[i].name,
				    ic ? label : "no section", why ?: "attach");
			fail();
		}
	}
	rfsd_config_free(&cfg);
	assert_int_equal(rfs_test_load("[interface eth1]\n", &cfg, err), 0);
	assert_false(rfsd_config_wants_routes(&cfg));
	rfsd_config_free(&cfg);
}

/* A fake sysfs under root: online 0-7, isolated 4-5, nohz_full 5-6. */
static void rfs_test_fake_sysfs(char *root, size_t len, const char *nohz)
{
	static const char *const f[][2] = {
		{ "online", "0-7\n" }, { "isolated", "4-5\n" },
	};
	char path[512];
	unsigned int i;
	FILE *fp;

	snprintf(root, len, "/tmp/rfs-test-sys.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "mkdir -p %s/sys/devices/system/cpu", root);
	assert_int_equal(system(path), 0);
	for (i = 0; i < 3; i++) {
		if (i == 2 && !nohz)
			break;
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", root,
			 i < 2 ? f[i][0] : "nohz_full");
		fp = fopen(path, "w");
		assert_non_null(fp);
		fputs(i < 2 ? f[i][1] : nohz, fp);
		fclose(fp);
	}
}

static void rfs_test_cpus_spellings(void **state)
{
	static const struct {
		const char *spec;
		const char *nohz;	/* nohz_full's content; NULL: no file */
		int ret;
		const char *want;	/* "" follows every online CPU */
	} t[] = {
		{ NULL, NULL, 0, "" },
		{ "all", NULL, 0, "" },
		{ "0-3,6", NULL, 0, "0-3,6" },
		{ "0-3 !1", NULL, 0, "0,2-3" },
		{ "isolated", NULL, 0, "4-5" },
		{ "isolated", "5-6\n", 0, "4-6" },
		{ "isolated", "(null)\n", 0, "4-5" },
		{ "housekeeping", NULL, 0, "0-3,6-7" },
		{ "housekeeping", "5-6\n", 0, "0-3,7" },
		{ "all !housekeeping", "6\n", 0, "4-6" },
		{ "!housekeeping", NULL, 0, "4-5" },
		{ "!isolated !0", NULL, 0, "1-3,6-7" },
		{ "housekeeping 5", NULL, 0, "0-3,5-7" },
		{ "isolated !4-5", NULL, -ENOENT, "" },
		{ "isolated nope", NULL, -EINVAL, "" },
	};
	struct rfs_cpuset set;
	char root[64], got[128], cmd[128];
	unsigned int i;
	int r;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_fake_sysfs(root, sizeof(root), t[i].nohz);
		r = rfsd_cpus_resolve(t[i].spec, root, &set);
		rfs_cpulist_format(&set, got, sizeof(got));
		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		assert_int_equal(system(cmd), 0);
		if (r != t[i].ret || (!r && strcmp(got, t[i].want))) {
			print_error("cpus '%s' (nohz_full %s): got %d '%s', want %d '%s'\n",
				    t[i].spec ?: "(none)", t[i].nohz ?: "none",
				    r, got, t[i].ret, t[i].want);
			fail();
		}
	}
	/* isolcpus-free node: isolated is nothing, and says so */
	rfs_test_fake_sysfs(root, sizeof(root), NULL);
	snprintf(cmd, sizeof(cmd), "echo > %s/sys/devices/system/cpu/isolated", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(rfsd_cpus_resolve("isolated", root, &set), -ENOENT);
	assert_int_equal(rfsd_cpus_resolve("housekeeping", root, &set), 0);
	assert_int_equal(rfs_cpuset_count(&set), 8);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_good),
		cmocka_unit_test(rfs_test_ksched),
		cmocka_unit_test(rfs_test_numbers),
		cmocka_unit_test(rfs_test_leaving_warn),
		cmocka_unit_test(rfs_test_early_drop),
		cmocka_unit_test(rfs_test_other_errors),
		cmocka_unit_test(rfs_test_long_line),
		cmocka_unit_test(rfs_test_noguard),
		cmocka_unit_test(rfs_test_groups),
		cmocka_unit_test(rfs_test_budgets),
		cmocka_unit_test(rfs_test_patterns),
		cmocka_unit_test(rfs_test_cpus_spellings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
