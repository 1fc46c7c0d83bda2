// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/lib/rfs_prom.c, the Prometheus exposition shared by
 * rfsd's /metrics and `rfsctl stats --format prometheus`: a fixed snapshot
 * (the control replies as docs/protocol.md gives them) in, the text out,
 * checked line by line; label escaping of odd interface names; the
 * format's rules (HELP and TYPE once, before the samples of their family);
 * and the collector's handling of an interface that went away.
 * tests/integration/test_metrics.sh runs promtool on real outputs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rfs_prom.h"

/* Two CPUs, one interface with a quote and a backslash in its name (the
 * kernel allows both), one lost, a counter this formatter has no text
 * for ("future_ctr", as a newer rfsd could add), and the kthread's wait
 * known on CPU 1 only. */
static const char snap_json[] =
"{\"status\": {\"version\": \"0.1.0\", \"commit\": \"abc123\","
"  \"sock_flow_entries\": 32768, \"nr_cpus\": 2,"
"  \"interfaces\": [{\"name\": \"ve\\\"th\\\\0\", \"mode\": \"native\","
"     \"rx_queues\": 1, \"flow_cnt\": 4096, \"cpus\": [0, 1],"
"     \"active_cpus\": [1]}],"
"  \"lost\": [{\"name\": \"eth9\", \"replaced_by\": 42}]},"
" \"stats\": {\"interface\": null, \"total\": {},"
"  \"per_cpu\": [{\"cpu\": 0, \"seen\": 10, \"dequeued\": 5, \"enqueue_drops\": 0,"
"                \"recv_local\": 7, \"recv_remote\": 3, \"future_ctr\": 9,"
"                \"backlog\": 0},"
"               {\"cpu\": 1, \"seen\": 20, \"dequeued\": 18446744073709551615,"
"                \"enqueue_drops\": 4, \"recv_local\": 1, \"recv_remote\": 0,"
"                \"future_ctr\": 8, \"backlog\": 3,"
"                \"kthread_wait_ns\": 1234567890123, \"kthread_runs\": 42}]},"
" \"interfaces\": [{\"interface\": \"ve\\\"th\\\\0\", \"total\": {},"
"  \"per_cpu\": [{\"cpu\": 0, \"seen\": 10, \"steered\": 9, \"held\": 1},"
"               {\"cpu\": 1, \"seen\": 20, \"steered\": 20, \"held\": 0}]}]}";

static char *format(const char *json)
{
	struct json_object *snap = json_tokener_parse(json);
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(snap);
	assert_non_null(f);
	assert_int_equal(rfs_prom_format(f, snap), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	json_object_put(snap);
	return buf;
}

/* line is one whole line of text */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
		p++;
	}
	return false;
}

#define assert_line(text, line)						\
	do {								\
		if (!has_line(text, line))				\
			fail_msg("missing line '%s' in:\n%s", line, text); \
	} while (0)

static void rfs_test_samples(void **state)
{
	char *t = format(snap_json);

	assert_line(t, "rfs_build_info{version=\"0.1.0\",commit=\"abc123\"} 1");
	assert_line(t, "# TYPE rfs_build_info gauge");
	assert_line(t, "rfs_cpus 2");
	assert_line(t, "rfs_sock_flow_entries 32768");
	/* interface counters: interface and cpu, name escaped */
	assert_line(t, "# TYPE rfs_seen_total counter");
	assert_line(t, "rfs_seen_total{interface=\"ve\\\"th\\\\0\",cpu=\"0\"} 10");
	assert_line(t, "rfs_seen_total{interface=\"ve\\\"th\\\\0\",cpu=\"1\"} 20");
	assert_line(t, "rfs_held_total{interface=\"ve\\\"th\\\\0\",cpu=\"0\"} 1");
	/* datapath-wide: cpu only; full 64-bit range */
	assert_line(t, "rfs_dequeued_total{cpu=\"1\"} 18446744073709551615");
	assert_line(t, "rfs_enqueue_drops_total{cpu=\"1\"} 4");
	assert_line(t, "rfs_recv_local_total{cpu=\"0\"} 7");
	assert_line(t, "rfs_recv_remote_total{cpu=\"0\"} 3");
	/* gauges of the interface and its mode */
	assert_line(t, "rfs_interface_attached{interface=\"ve\\\"th\\\\0\",mode=\"native\"} 1");
	assert_line(t, "rfs_interface_flow_cnt{interface=\"ve\\\"th\\\\0\"} 4096");
	assert_line(t, "rfs_interface_rx_queues{interface=\"ve\\\"th\\\\0\"} 1");
	assert_line(t, "rfs_interface_cpus{interface=\"ve\\\"th\\\\0\"} 2");
	assert_line(t, "rfs_interface_active_cpus{interface=\"ve\\\"th\\\\0\"} 1");
	assert_line(t, "rfs_interface_lost{interface=\"eth9\"} 1");
	/* backlog is a level: a gauge, no _total */
	assert_line(t, "# TYPE rfs_backlog gauge");
	assert_line(t, "rfs_backlog{cpu=\"1\"} 3");
	assert_null(strstr(t, "rfs_backlog_total"));
	/* the kthread's wait in seconds, only where rfsd knew it (CPU 1) */
	assert_line(t, "# TYPE rfs_kthread_wait_seconds_total counter");
	assert_line(t, "rfs_kthread_wait_seconds_total{cpu=\"1\"} 1234.567890123");
	assert_null(strstr(t, "rfs_kthread_wait_seconds_total{cpu=\"0\"}"));
	assert_null(strstr(t, "kthread_wait_ns"));
	assert_line(t, "rfs_kthread_runs_total{cpu=\"1\"} 42");
	assert_null(strstr(t, "rfs_kthread_runs_total{cpu=\"0\"}"));
	/* a counter it does not know is still there, per CPU */
	assert_line(t, "# TYPE rfs_future_ctr_total counter");
	assert_line(t, "rfs_future_ctr_total{cpu=\"1\"} 8");
	/* the interface counters are not summed into cpu-only series */
	assert_null(strstr(t, "rfs_seen_total{cpu="));
	/* no sample of a counter nobody reported: no family either */
	assert_null(strstr(t, "rfs_switches_total"));
	free(t);
}

/* Every sample's family has HELP then TYPE, once each, before it; the
 * samples of a family are contiguous; counters end in _total. */
static void rfs_test_format_rules(void **state)
{
	char *t = format(snap_json), *save = NULL, *line;
	char done[64][80], cur[80] = "", help[80] = "";
	size_t n_done = 0, i;

	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[80], type[16];

		if (sscanf(line, "# HELP %79s", name) == 1) {
			for (i = 0; i < n_done; i++)
				assert_string_not_equal(done[i], name);
			snprintf(help, sizeof(help), "%s", name);
			continue;
		}
		if (sscanf(line, "# TYPE %79s %15s", name, type) == 2) {
			assert_string_equal(help, name);
			if (!strcmp(type, "counter"))
				assert_non_null(strstr(name, "_total"));
			else
				assert_string_equal(type, "gauge");
			assert_true(n_done < 64);
			snprintf(done[n_done++], sizeof(done[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		assert_int_not_equal(line[0], '#');
		assert_int_equal(sscanf(line, "%79[^{ ]", name), 1);
		assert_string_equal(name, cur);
		assert_int_equal(strncmp(name, "rfs_", 4), 0);
	}
	assert_true(n_done >= 15);
	free(t);
}

static void rfs_test_escape(void **state)
{
	static const struct {
		const char *in, *out;
		bool label;
	} t[] = {
		{ "eth0", "eth0", true },
		{ "a\"b", "a\\\"b", true },
		{ "a\\b", "a\\\\b", true },
		{ "a\nb", "a\\nb", true },
		{ "\\\"\n", "\\\\\\\"\\n", true },
		{ "", "", true },
		/* HELP text keeps its quotes */
		{ "\\\"\n", "\\\\\"\\n", false },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		rfs_prom_escape(f, t[i].in, t[i].label);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf, t[i].out);
		free(buf);
	}
}

static void rfs_test_no_interface(void **state)
{
	char *t = format("{\"status\": {\"version\": \"0.1.0\", \"nr_cpus\": 1,"
			 " \"interfaces\": []},"
			 " \"stats\": {\"per_cpu\": [{\"cpu\": 0, \"dequeued\": 3,"
			 " \"9lives\": 1, \"bad-name\": 2, \"ok:name_9\": 4}]},"
			 " \"interfaces\": []}");

	assert_line(t, "rfs_build_info{version=\"0.1.0\",commit=\"unknown\"} 1");
	assert_line(t, "# TYPE rfs_interface_attached gauge");
	assert_null(strstr(t, "rfs_interface_attached{"));
	assert_null(strstr(t, "rfs_seen_total"));
	assert_line(t, "rfs_dequeued_total{cpu=\"0\"} 3");
	/* a newer rfsd's counter is exposed only under a valid name */
	assert_line(t, "rfs_ok:name_9_total{cpu=\"0\"} 4");
	assert_null(strstr(t, "9lives"));
	assert_null(strstr(t, "bad-name"));
	free(t);
}

/* CPUs leaving an interface (status' "leaving"): how many, the flows
 * they wait for, the oldest one's wait; 0s where none leaves; nothing for
 * an interface whose rfsd does not report them. */
static void rfs_test_leaving(void **state)
{
	char *t = format("{\"status\": {\"version\": \"0.1.0\", \"nr_cpus\": 4,"
			 " \"interfaces\": ["
			 "  {\"name\": \"a\", \"held_flows\": 4, \"leaving\": ["
			 "    {\"cpu\": 1, \"waited_ms\": 500, \"flows\": 1},"
			 "    {\"cpu\": 2, \"waited_ms\": 12345, \"flows\": 3}]},"
			 "  {\"name\": \"b\", \"held_flows\": 0, \"leaving\": []},"
			 "  {\"name\": \"old\"}]},"
			 " \"stats\": {\"per_cpu\": []}, \"interfaces\": []}");

	assert_line(t, "# TYPE rfs_interface_leaving_cpus gauge");
	assert_line(t, "rfs_interface_leaving_cpus{interface=\"a\"} 2");
	assert_line(t, "rfs_interface_leaving_cpus{interface=\"b\"} 0");
	assert_line(t, "# TYPE rfs_interface_held_flows gauge");
	assert_line(t, "rfs_interface_held_flows{interface=\"a\"} 4");
	assert_line(t, "rfs_interface_held_flows{interface=\"b\"} 0");
	assert_line(t, "# TYPE rfs_interface_leaving_wait_seconds gauge");
	assert_line(t, "rfs_interface_leaving_wait_seconds{interface=\"a\"} 12.345");
	assert_line(t, "rfs_interface_leaving_wait_seconds{interface=\"b\"} 0.000");
	assert_null(strstr(t, "{interface=\"old\"}"));
	free(t);
	/* no interface reports it: no family */
	t = format("{\"status\": {\"version\": \"0.1.0\", \"interfaces\": ["
		   " {\"name\": \"old\"}]}, \"stats\": {\"per_cpu\": []},"
		   " \"interfaces\": []}");
	assert_null(strstr(t, "leaving"));
	assert_null(strstr(t, "held_flows"));
	free(t);
}

static void rfs_test_bad_snapshot(void **state)
{
	struct json_object *snap = json_tokener_parse("{\"stats\": {}}");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(rfs_prom_format(f, snap), -EINVAL);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	json_object_put(snap);
}

/* ---- the collector, on a fake rfsd ---- */

struct fake {
	int calls;
	int stats_err;		/* what "stats" of eth1 answers */
	char log[256];
};

static int fake_call(void *ctx, struct json_object *req,
		     struct json_object **result, char *err, size_t len)
{
	struct fake *fk = ctx;
	struct json_object *v;
	char cmd[32], ifbuf[32], *iface = NULL;

	fk->calls++;
	assert_true(json_object_object_get_ex(req, "cmd", &v));
	snprintf(cmd, sizeof(cmd), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(req, "iface", &v)) {
		snprintf(ifbuf, sizeof(ifbuf), "%s", json_object_get_string(v));
		iface = ifbuf;
	}
	snprintf(fk->log + strlen(fk->log), sizeof(fk->log) - strlen(fk->log),
		 "%s%s%s;", cmd, iface ? " " : "", iface ?: "");
	json_object_put(req);	/* consumed, as the real callbacks do */
	if (!strcmp(cmd, "status")) {
		*result = json_tokener_parse(
			"{\"interfaces\": [{\"name\": \"eth0\"}, {\"name\": \"eth1\"}]}");
		return 0;
	}
	if (iface && !strcmp(iface, "eth1") && fk->stats_err) {
		snprintf(err, len, "stats eth1: not attached");
		return fk->stats_err;
	}
	*result = json_tokener_parse("{\"per_cpu\": []}");
	if (iface)
		json_object_object_add(*result, "interface",
				       json_object_new_string(iface));
	return 0;
}

static void rfs_test_collect(void **state)
{
	struct fake fk = {};
	struct json_object *snap, *ifs;
	char err[128] = "";

	assert_int_equal(rfs_prom_collect(fake_call, &fk, &snap, err,
					  sizeof(err)), 0);
	assert_string_equal(fk.log, "status;stats;stats eth0;stats eth1;");
	assert_true(json_object_object_get_ex(snap, "interfaces", &ifs));
	assert_int_equal(json_object_array_length(ifs), 2);
	json_object_put(snap);

	/* detached between status and its stats: left out */
	fk = (struct fake){ .stats_err = -ENOENT };
	assert_int_equal(rfs_prom_collect(fake_call, &fk, &snap, err,
					  sizeof(err)), 0);
	assert_true(json_object_object_get_ex(snap, "interfaces", &ifs));
	assert_int_equal(json_object_array_length(ifs), 1);
	json_object_put(snap);

	/* anything else fails the whole, with the daemon's message */
	fk = (struct fake){ .stats_err = -EIO };
	assert_int_equal(rfs_prom_collect(fake_call, &fk, &snap, err,
					  sizeof(err)), -EIO);
	assert_null(snap);
	assert_string_equal(err, "stats eth1: not attached");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_samples),
		cmocka_unit_test(rfs_test_format_rules),
		cmocka_unit_test(rfs_test_escape),
		cmocka_unit_test(rfs_test_no_interface),
		cmocka_unit_test(rfs_test_leaving),
		cmocka_unit_test(rfs_test_bad_snapshot),
		cmocka_unit_test(rfs_test_collect),
	};

	return cmocka_run_group_tests_name("rfs_prom", tests, NULL, NULL);
}
