// SPDX-License-Identifier: GPL-2.0
/* status, stats and flows: under -j rfsd's result as it is */
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
		      .help = "show at most N flows (default: 20)",
		      .key = "limit"),
	DEFINE_OPTION("interval", OPT_UINT, struct show_cfg, interval,
		      .metavar = "MS",
		      .help = "count frames for MS milliseconds (default: 500)",
		      .key = "interval_ms"),
	END_OPTIONS
};

/* A plain text table: cells added row by row, then printed aligned (left
 * where bit c of left is set, else right) and freed. */
struct table {
	int ncols;
	__u64 left;
	size_t n;
	char (*cells)[128];
};

static void __attribute__((format(printf, 2, 3)))
cell(struct table *t, const char *fmt, ...)
{
	char (*nc)[128] = realloc(t->cells, (t->n + 1) * sizeof(*nc));
	va_list ap;

	if (!nc)
		return;
	t->cells = nc;
	va_start(ap, fmt);
	vsnprintf(nc[t->n++], sizeof(*nc), fmt, ap);
	va_end(ap);
}

static void table_print(struct table *t)
{
	size_t i, r, *w = calloc(t->ncols, sizeof(*w));
	int c, last;
	bool left;

	for (i = 0; w && i < t->n; i++)
		if (strlen(t->cells[i]) > w[i % t->ncols])
			w[i % t->ncols] = strlen(t->cells[i]);
	for (r = 0; w && r + t->ncols <= t->n; r += t->ncols) {
		/* no trailing blanks: empty cells make title rows */
		last = t->ncols - 1;
		while (last >= 0 && !t->cells[r + last][0])
			last--;
		for (c = 0; c <= last; c++) {
			left = c < 64 && (t->left >> c & 1);
			printf(left ? "%-*s%s" : "%*s%s",
			       left && c == last ? 0 : (int)w[c],
			       t->cells[r + c], c == last ? "" : "  ");
		}
		printf("\n");
	}
	free(w);
	free(t->cells);
}

/* ---- status ---- */

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

static void kernel_plain(struct json_object *st)
{
	struct json_object *k = rfs_get(st, "kernel"), *ifs;

	if (!k)
		return;
	printf("\nkernel %s%s: flows %s\n", rfs_str(k, "release", "?"),
	       rfs_bool(k, "faked") ? " (features faked for a test)" : "",
	       rfs_bool(k, "order_kept") ? "kept in order" :
	       rfs_bool(k, "allow_unordered") ?
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
	const char *by;
	size_t i, n;

	printf("rfsd %s\n", rfs_str(st, "version", "?"));
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
		by = rfs_str(l, "replaced_by", NULL);
		printf("\nlost %s: another tool %s our XDP program%s%s\n",
		       rfs_str(l, "name", NULL), by ? "replaced" : "detached",
		       by ? " with program " : "", by ?: "");
	}
}

static int do_status(const struct rfsctl_cfg *g, const void *cfg)
{
	return rfs_show(g, rfs_req_new("status", NULL, NULL), 0, NULL,
			json_type_object, "the status", status_plain, NULL);
}

/* ---- stats ---- */

/* The group's rows (global or per interface) under a header row, after
 * an empty row if sep; false if it has none. */
static bool stats_rows(struct table *t, const char *title,
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
			cell(t, "%s", "");
		if (!any)
			cell(t, "%s", title);
		if (!any)
			cell(t, "total");
		for (i = 0; !any && i < ncpu; i++)
			cell(t, "cpu%s", rfs_str(json_object_array_get_idx(
				per_cpu, i), "cpu", "?"));
		any = true;
		cell(t, "%s", key);
		for (i = 0; i <= ncpu; i++) {
			rfs_fmt_value(rfs_get(i ? json_object_array_get_idx(
				per_cpu, i - 1) : total, key), buf, sizeof(buf));
			cell(t, "%s", buf);
		}
	}
	return any;
}

/* A derived row: recv_local's share of the recvs that returned data (the
 * application read what the stack processed on its CPU), or (kwait) the
 * wait of the CPU's cpumap kthread for its CPU per run since it was made
 * (what frames steered there waited for other tasks). */
static void stats_derived(struct table *t, const char *title,
			  struct json_object *total,
			  struct json_object *per_cpu, size_t ncpu, bool kwait)
{
	struct json_object *o;
	__u64 hit, all;
	double v;
	size_t i;

	cell(t, "%s", title);
	for (i = 0; i <= ncpu; i++) {
		o = i ? json_object_array_get_idx(per_cpu, i - 1) : total;
		hit = rfs_u64(o, "recv_local");
		all = hit + rfs_u64(o, "recv_remote");
		v = NAN;
		if (kwait && json_object_object_get_ex(o, "kthread_wait_ns",
						       NULL))
			v = rfs_top_kwait_us(rfs_u64(o, "kthread_wait_ns"),
					     rfs_u64(o, "kthread_runs"));
		else if (!kwait && all)
			v = 100.0 * hit / all;
		if (isnan(v))
			cell(t, "-");
		else
			cell(t, kwait ? "%.1f us" : "%.1f%%", v);
	}
}

static void stats_plain(struct json_object *st)
{
	struct json_object *total = rfs_get(st, "total");
	struct json_object *per_cpu = rfs_get(st, "per_cpu");
	size_t ncpu = rfs_len(per_cpu);
	struct table t = { .ncols = ncpu + 2, .left = 1 };
	char title[64];
	bool sep;

	snprintf(title, sizeof(title), "interface counters (%s)",
		 rfs_str(st, "interface", "all"));
	sep = stats_rows(&t, title, total, per_cpu, ncpu, false, false);
	stats_rows(&t, "datapath counters", total, per_cpu, ncpu, true, sep);
	if (rfs_u64(total, "recv_local") + rfs_u64(total, "recv_remote"))
		stats_derived(&t, "locality", total, per_cpu, ncpu, false);
	if (rfs_u64(total, "kthread_runs"))
		stats_derived(&t, "kthread wait/run", total, per_cpu, ncpu,
			      true);
	table_print(&t);
}

/* The exposition of /metrics, built by the same code (rfs_prom.c) from
 * the same requests: for node_exporter's textfile collector. */
static int stats_prometheus(const struct rfsctl_cfg *g)
{
	struct json_object *snap;
	int e;

	if (rfs_call(g, NULL, RFS_CTL_TIMEOUT_MS, &snap, NULL, 0))
		return EXIT_FAILURE;
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
	struct json_object *result;
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
	ret = rfs_call(g, rfs_req_new("stats", stats_opts, cfg),
		       RFS_CTL_TIMEOUT_MS, &result, NULL, 0) ?:
	      rfs_expect(result, json_type_object, "the stats result") ?:
	      rfs_expect(rfs_get(result, "total"), json_type_object,
			 "stats \"total\"");
	if (!ret && g->json)
		p_json(result);
	else if (!ret)
		stats_plain(result);
	json_object_put(result);
	return ret;
}

/* ---- flows ---- */

static void flows_plain(struct json_object *flows, const void *arg)
{
	static const char *const cols[][2] = {	/* key, title */
		{ "iface", "iface" }, { "rx_queue", "rxq" }, { "hash", "hash" },
		{ "frames", "frames" }, { "desired_cpu", "desired" },
		{ "current_cpu", "current" }, { "path", "path" },
	};
	size_t i, c, n = json_object_array_length(flows);
	struct table t = { .ncols = 7, .left = 1 << 0 | 1 << 2 | 1 << 6 };
	char buf[64];

	if (!n) {
		printf("no flows seen in %u ms\n", *(const unsigned int *)arg);
		return;
	}
	for (c = 0; c < 7; c++)
		cell(&t, "%s", cols[c][1]);
	for (i = 0; i < n * 7; i++) {
		rfs_fmt_value(rfs_get(json_object_array_get_idx(flows, i / 7),
				      cols[i % 7][0]), buf, sizeof(buf));
		cell(&t, "%s", buf);
	}
	table_print(&t);
}

/* rfsd counts frames per flow for the interval, then answers with the
 * busiest flows: the wait for the reply is stretched by the interval. */
static int do_flows(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct show_cfg *c = cfg;
	unsigned int interval = c->interval ?: FLOWS_INTERVAL_DEFAULT;

	/* rfsd caps the interval (and says so); don't wait past a minute;
	 * -j prints the array itself, not rfsd's {"flows": [...]} */
	return rfs_show(g, rfs_req_new("flows", flows_opts, cfg),
			interval < 60000 ? interval : 60000, "flows",
			json_type_array, "\"flows\"", flows_plain, &interval);
}
const struct rfs_cmd rfs_cmd_status = DEFINE_COMMAND("status", status,
	do_status, "Show the datapath and every attached interface.");
const struct rfs_cmd rfs_cmd_stats = DEFINE_COMMAND("stats", stats,
	do_stats, "Show the datapath counters, in total and per CPU.");
const struct rfs_cmd rfs_cmd_flows = DEFINE_COMMAND("flows", flows,
	do_flows, "Show the busiest flows with their desired and current CPU.");
