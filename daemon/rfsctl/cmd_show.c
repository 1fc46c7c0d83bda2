// SPDX-License-Identifier: GPL-2.0
/*
 * status, stats and flows.  Under -j each prints rfsd's result as it is;
 * the plain printers print the keys they know in order and then any
 * others, so a newer rfsd's additions still show.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "rfs_prom.h"
#include "rfsctl.h"

#define FLOWS_INTERVAL_DEFAULT	500	/* ms, docs/protocol.md */

static const struct show_cfg {
	const char *iface;
	const char *format;	/* stats: NULL, "table" or "prometheus" */
	unsigned int limit;
	unsigned int interval;
} status_defaults, stats_defaults, flows_defaults;

static const struct rfs_opt status_opts[] = { END_OPTIONS };

#define ANY_IFACE	IFACE_OPTION(struct show_cfg,			\
	"an attached interface (default: all of them)", .optional = true)

static const char *const stats_formats[] = { "table", "prometheus", NULL };

static const struct rfs_opt stats_opts[] = {
	ANY_IFACE,
	DEFINE_OPTION("format", OPT_ENUM, struct show_cfg, format,
		      .metavar = "FORMAT", .values = stats_formats,
		      .help = "table (default), or prometheus: what /metrics serves"),
	END_OPTIONS
};

static const struct rfs_opt flows_opts[] = {
	ANY_IFACE,
	DEFINE_OPTION("limit", OPT_UINT, struct show_cfg, limit,
		      .metavar = "N",
		      .help = "show at most N flows (default: 20)"),
	DEFINE_OPTION("interval", OPT_UINT, struct show_cfg, interval,
		      .metavar = "MS",
		      .help = "count frames for MS milliseconds (default: 500)"),
	END_OPTIONS
};

/* ---- status ---- */

/* cpumap_kthreads: the policy asked for, then a line per CPU whose
 * kthread the datapath has seen ("cpu 0  pid 1234, SCHED_FIFO 1"). */
static void kthreads_plain(struct json_object *k)
{
	struct json_object *a = rfs_get(k, "kthreads"), *e;
	char label[32];
	size_t i;

	printf("  %-18s %s\n", "kthread sched", rfs_str(k, "sched", "?"));
	for (i = 0; i < rfs_len(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!rfs_str(e, "pid", NULL))
			continue;
		snprintf(label, sizeof(label), "cpu %s kthread",
			 rfs_str(e, "cpu", "?"));
		printf("  %-18s pid %s", label, rfs_str(e, "pid", NULL));
		if (rfs_str(e, "error", NULL))
			printf(", not changed: %s\n", rfs_str(e, "error", NULL));
		else if (rfs_str(e, "policy", NULL))
			printf(", %s%s\n", rfs_str(e, "policy", NULL),
			       json_object_object_get_ex(e, "flooded", NULL) ?
			       " while flooded" : "");
		else
			printf(", left alone\n");
	}
}

/* "  cpumap_gro      ok        none: <why>" per feature */
static void feature_lines(struct json_object *a, const char *indent)
{
	struct json_object *l;
	size_t i;

	for (i = 0; i < rfs_len(a); i++) {
		l = json_object_array_get_idx(a, i);
		printf("%s%-17s %-9s %s: %s\n", indent, rfs_str(l, "name", "?"),
		       rfs_str(l, "level", "?"), rfs_str(l, "value", "?"),
		       rfs_str(l, "why", "?"));
	}
}

#define is_true(o, key)	json_object_get_boolean(rfs_get(o, key))

/* The kernel block: what rfsd found and what it means for ordering. */
static void kernel_plain(struct json_object *st)
{
	struct json_object *k = rfs_get(st, "kernel"), *ifs;

	if (!k)
		return;
	printf("\nkernel %s%s: flows %s\n", rfs_str(k, "release", "?"),
	       is_true(k, "faked") ? " (features faked for a test)" : "",
	       is_true(k, "order_kept") ? "kept in order" :
	       is_true(k, "allow_unordered") ?
	       "NOT kept in order (allow_unordered: attaching anyway)" :
	       "NOT kept in order (attach refused without --allow-unordered)");
	feature_lines(rfs_get(k, "features"), "  ");
	ifs = rfs_get(k, "interfaces");
	if (json_object_is_type(ifs, json_type_object)) {
		json_object_object_foreach(ifs, name, lines) {
			printf("  interface %s\n", name);
			feature_lines(lines, "    ");
		}
	}
}

static void status_plain(struct json_object *st, const void *arg)
{
	static const char *const order[] = {
		"pin_dir", "cgroup", "trace_mode", "sock_flow_entries",
		"nr_cpus", "programs", NULL
	};
	static const char *const skip[] = { "version", "interfaces", "lost",
					    "cpumap_kthreads", "kernel", NULL };
	struct json_object *a, *l;
	size_t i, n;

	printf("rfsd %s\n", json_object_object_get_ex(st, "version", NULL) ?
	       rfs_str(st, "version", NULL) : "?");
	rfs_print_kv(st, "  ", order, skip);
	a = rfs_get(st, "cpumap_kthreads");
	if (json_object_is_type(a, json_type_object))
		kthreads_plain(a);
	a = rfs_get(st, "interfaces");
	for (i = 0, n = rfs_len(a); i < n; i++) {
		printf("\n");
		rfs_print_iface_plain(json_object_array_get_idx(a, i));
	}
	if (!n)
		printf("\nno interface attached\n");
	kernel_plain(st);
	a = rfs_get(st, "lost");
	for (i = 0; i < rfs_len(a); i++) {
		l = json_object_array_get_idx(a, i);
		if (!json_object_object_get_ex(l, "name", NULL))
			continue;
		if (rfs_str(l, "replaced_by", NULL))
			printf("\nlost %s: another tool replaced our XDP program with program %s\n",
			       rfs_str(l, "name", NULL),
			       rfs_str(l, "replaced_by", NULL));
		else
			printf("\nlost %s: another tool detached our XDP program\n",
			       rfs_str(l, "name", NULL));
	}
}

static int do_status(const struct rfsctl_cfg *g, const void *cfg)
{
	return rfs_show(g, rfs_req_new("status"), 0, NULL, json_type_object,
			"the status", status_plain, NULL);
}

/* ---- stats ---- */

/* A header row: the group title, "total", then a column per CPU. */
static void stats_header(struct rfs_table *t, const char *title,
			 struct json_object *per_cpu, size_t ncpu)
{
	struct json_object *cpu;
	size_t i;

	rfs_table_add(t, title);
	rfs_table_add(t, "total");
	for (i = 0; i < ncpu; i++) {
		if (json_object_object_get_ex(json_object_array_get_idx(per_cpu,
					      i), "cpu", &cpu))
			rfs_table_addf(t, "cpu%s", json_object_get_string(cpu));
		else
			rfs_table_addf(t, "cpu%zu", i);
	}
}

/* The group's rows (global or per interface) under its header, after an
 * empty row if sep; false if it has none. */
static bool stats_rows(struct rfs_table *t, const char *title,
		       struct json_object *total, struct json_object *per_cpu,
		       size_t ncpu, bool global, bool sep)
{
	bool any = false;
	char buf[64];
	size_t i;

	json_object_object_foreach(total, key, val) {
		if (rfs_prom_global(key) != global)
			continue;
		for (i = 0; !any && sep && i < ncpu + 2; i++)
			rfs_table_add(t, "");
		if (!any)
			stats_header(t, title, per_cpu, ncpu);
		any = true;
		rfs_table_add(t, key);
		rfs_fmt_value(val, buf, sizeof(buf));
		rfs_table_add(t, buf);
		for (i = 0; i < ncpu; i++) {
			rfs_fmt_value(rfs_get(json_object_array_get_idx(per_cpu,
					      i), key), buf, sizeof(buf));
			rfs_table_add(t, buf);
		}
	}
	return any;
}

/*
 * A derived cell of o: recv_local as a share of the recvs that returned
 * data (how often the application read data the stack had processed on
 * its own CPU), or (kwait) how long the CPU's cpumap kthread waited for
 * its CPU per run since it was made (what frames steered there waited
 * for other tasks).
 */
static void derived_cell(struct rfs_table *t, struct json_object *o,
			 bool kwait)
{
	__u64 hit = rfs_u64(o, "recv_local");
	__u64 all = hit + rfs_u64(o, "recv_remote");
	double v = NAN;

	if (kwait && json_object_object_get_ex(o, "kthread_wait_ns", NULL))
		v = rfs_top_kwait_us(rfs_u64(o, "kthread_wait_ns"),
				     rfs_u64(o, "kthread_runs"));
	else if (!kwait && all)
		v = 100.0 * hit / all;
	if (isnan(v))
		rfs_table_add(t, "-");
	else
		rfs_table_addf(t, kwait ? "%.1f us" : "%.1f%%", v);
}

/* A derived row: title, then the cell of the total and of each CPU. */
static void stats_derived(struct rfs_table *t, const char *title,
			  struct json_object *total,
			  struct json_object *per_cpu, size_t ncpu, bool kwait)
{
	size_t i;

	rfs_table_add(t, title);
	derived_cell(t, total, kwait);
	for (i = 0; i < ncpu; i++)
		derived_cell(t, json_object_array_get_idx(per_cpu, i), kwait);
}

static void stats_plain(struct json_object *st)
{
	struct json_object *total = NULL, *per_cpu;
	struct rfs_table *t;
	char title[64];
	size_t ncpu;
	bool sep;

	json_object_object_get_ex(st, "total", &total);
	per_cpu = rfs_get(st, "per_cpu");
	ncpu = rfs_len(per_cpu);
	t = rfs_table_new(ncpu + 2, 1);	/* the names left, numbers right */

	snprintf(title, sizeof(title), "interface counters (%s)",
		 rfs_str(st, "interface", "all"));
	sep = stats_rows(t, title, total, per_cpu, ncpu, false, false);
	stats_rows(t, "datapath counters", total, per_cpu, ncpu, true, sep);
	if (rfs_u64(total, "recv_local") + rfs_u64(total, "recv_remote"))
		stats_derived(t, "locality", total, per_cpu, ncpu, false);
	if (rfs_u64(total, "kthread_runs"))
		stats_derived(t, "kthread wait/run", total, per_cpu, ncpu,
			      true);
	rfs_table_print(t);
}

/* The exposition of /metrics, built by the same code (rfs_prom.c) from
 * the same requests: for node_exporter's textfile collector. */
static int stats_prometheus(const struct rfsctl_cfg *g)
{
	char err[RFS_CTL_ERR_LEN];
	struct json_object *snap;
	struct rfs_ctl *ctl;
	int e;

	e = rfs_connect(g, RFS_CTL_TIMEOUT_MS, &ctl, err, sizeof(err));
	if (!e)
		e = rfs_prom_collect(rfs_ctl_ask, ctl, &snap, err, sizeof(err));
	rfs_ctl_close(ctl);
	if (e) {
		p_err("%s", err);
		return EXIT_FAILURE;
	}
	e = rfs_prom_format(stdout, snap);
	json_object_put(snap);
	if (e || fflush(stdout)) {
		p_err("can't print the exposition: %s",
		      strerror(e ? -e : errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

static int do_stats(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct show_cfg *c = cfg;
	struct json_object *req, *result, *total = NULL;
	int ret;

	if (c->format && !strcmp(c->format, "prometheus")) {
		if (c->iface)
			return p_usage("stats",
				       "--format prometheus covers every interface: no IFACE");
		if (g->json)
			return p_usage("stats",
				       "--format prometheus and -j don't go together");
		return stats_prometheus(g);
	}
	req = rfs_req_new("stats");
	if (c->iface)
		rfs_req_add_str(req, "iface", c->iface);
	ret = rfs_call(g, req, 0, &result, NULL, 0);
	if (!ret)
		ret = rfs_expect(result, json_type_object, "the stats result");
	if (!ret)
		json_object_object_get_ex(result, "total", &total);
	if (!ret)
		ret = rfs_expect(total, json_type_object, "stats \"total\"");
	if (!ret && g->json)
		p_json(result);
	else if (!ret)
		stats_plain(result);
	json_object_put(result);
	return ret;
}

/* ---- flows ---- */

/* rfsd counts frames per flow for the interval, then answers with the
 * busiest flows: the wait for the reply is stretched by the interval. */
static void flows_plain(struct json_object *flows, const void *arg)
{
	static const char *const cols[][2] = {	/* key, title */
		{ "iface", "iface" }, { "rx_queue", "rxq" }, { "hash", "hash" },
		{ "frames", "frames" }, { "desired_cpu", "desired" },
		{ "current_cpu", "current" }, { "path", "path" },
	};
	const size_t ncols = sizeof(cols) / sizeof(cols[0]);
	size_t i, c, n = json_object_array_length(flows);
	struct rfs_table *t;
	char buf[64];

	if (!n) {
		printf("no flows seen in %u ms\n", *(const unsigned int *)arg);
		return;
	}
	t = rfs_table_new(ncols, 1 << 0 | 1 << 2 | 1 << 6);	/* the text */
	for (c = 0; c < ncols; c++)
		rfs_table_add(t, cols[c][1]);
	for (i = 0; i < n; i++) {
		for (c = 0; c < ncols; c++) {
			rfs_fmt_value(rfs_get(json_object_array_get_idx(flows,
					      i), cols[c][0]), buf, sizeof(buf));
			rfs_table_add(t, buf);
		}
	}
	rfs_table_print(t);
}

static int do_flows(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct show_cfg *c = cfg;
	struct json_object *req = rfs_req_new("flows");
	unsigned int interval;

	if (c->iface)
		rfs_req_add_str(req, "iface", c->iface);
	if (c->limit)
		rfs_req_add_int(req, "limit", c->limit);
	if (c->interval)
		rfs_req_add_int(req, "interval_ms", c->interval);
	interval = c->interval ? c->interval : FLOWS_INTERVAL_DEFAULT;
	/* rfsd caps the interval (and says so); don't wait past a minute;
	 * -j prints the array itself, not rfsd's {"flows": [...]} */
	return rfs_show(g, req, interval < 60000 ? interval : 60000, "flows",
			json_type_array, "\"flows\"", flows_plain, &interval);
}

const struct rfs_cmd rfs_cmd_status = DEFINE_COMMAND("status", status,
	do_status, "Show the datapath and every attached interface.");
const struct rfs_cmd rfs_cmd_stats = DEFINE_COMMAND("stats", stats,
	do_stats, "Show the datapath counters, in total and per CPU.");
const struct rfs_cmd rfs_cmd_flows = DEFINE_COMMAND("flows", flows,
	do_flows, "Show the busiest flows with their desired and current CPU.");
