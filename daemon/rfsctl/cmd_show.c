// SPDX-License-Identifier: GPL-2.0
/*
 * status and stats.  Each has a _json printer (rfsd's result object as it
 * is) and a _plain one; the plain ones print the keys they know in order
 * and then any others, so a newer rfsd's additions still show.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "rfs_prom.h"
#include "rfsctl.h"
#include "top_rates.h"

const struct rfs_opt status_opts[] = { END_OPTIONS };
const struct none_cfg status_defaults;

static const char *const stats_formats[] = { "table", "prometheus", NULL };

const struct rfs_opt stats_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct stats_cfg, iface,
		      .positional = true, .optional = true,
		      .metavar = "IFACE",
		      .help = "an attached interface (default: all of them)"),
	DEFINE_OPTION("format", OPT_ENUM, struct stats_cfg, format,
		      .metavar = "FORMAT", .values = stats_formats,
		      .help = "table (default), or prometheus: what /metrics serves"),
	END_OPTIONS
};
const struct stats_cfg stats_defaults;

/* status */

/* cpumap_kthreads: the policy asked for, then a line per CPU whose
 * kthread the datapath has seen ("cpu 0  pid 1234, SCHED_FIFO 1"). */
static void kthreads_plain(struct json_object *k)
{
	struct json_object *a, *e, *v;
	size_t i;

	printf("  %-18s %s\n", "kthread sched",
	       json_object_object_get_ex(k, "sched", &v) ?
	       json_object_get_string(v) : "?");
	if (!json_object_object_get_ex(k, "kthreads", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(a); i++) {
		char label[32];

		e = json_object_array_get_idx(a, i);
		if (!json_object_object_get_ex(e, "pid", &v) || !v)
			continue;
		snprintf(label, sizeof(label), "cpu %s kthread",
			 json_object_object_get_ex(e, "cpu", &v) ?
			 json_object_get_string(v) : "?");
		json_object_object_get_ex(e, "pid", &v);
		printf("  %-18s pid %s", label, json_object_get_string(v));
		if (json_object_object_get_ex(e, "error", &v) && v)
			printf(", not changed: %s\n", json_object_get_string(v));
		else if (json_object_object_get_ex(e, "policy", &v) && v)
			printf(", %s%s\n", json_object_get_string(v),
			       json_object_object_get_ex(e, "flooded", NULL) ?
			       " while flooded" : "");
		else
			printf(", left alone\n");
	}
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ?
	       json_object_get_string(v) : "?";
}

/* "  cpumap_gro      ok        none: <why>" per feature */
static void feature_lines(struct json_object *a, const char *indent)
{
	size_t i;

	if (!a || !json_object_is_type(a, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(a); i++) {
		struct json_object *l = json_object_array_get_idx(a, i);

		printf("%s%-17s %-9s %s: %s\n", indent, str_of(l, "name"),
		       str_of(l, "level"), str_of(l, "value"), str_of(l, "why"));
	}
}

/* The kernel block: what rfsd found and what it means for ordering. */
static void kernel_plain(struct json_object *st)
{
	struct json_object *k, *v, *ifs;

	if (!json_object_object_get_ex(st, "kernel", &k) || !k)
		return;
	printf("\nkernel %s%s: flows %s\n", str_of(k, "release"),
	       json_object_object_get_ex(k, "faked", &v) &&
	       json_object_get_boolean(v) ? " (features faked for a test)" : "",
	       json_object_object_get_ex(k, "order_kept", &v) &&
	       json_object_get_boolean(v) ? "kept in order" :
	       json_object_object_get_ex(k, "allow_unordered", &v) &&
	       json_object_get_boolean(v) ?
	       "NOT kept in order (allow_unordered: attaching anyway)" :
	       "NOT kept in order (attach refused without --allow-unordered)");
	if (json_object_object_get_ex(k, "features", &v))
		feature_lines(v, "  ");
	if (json_object_object_get_ex(k, "interfaces", &ifs) && ifs &&
	    json_object_is_type(ifs, json_type_object)) {
		json_object_object_foreach(ifs, name, lines) {
			printf("  interface %s\n", name);
			feature_lines(lines, "    ");
		}
	}
}

static void status_plain(struct json_object *st)
{
	static const char *const order[] = {
		"pin_dir", "cgroup", "trace_mode", "sock_flow_entries",
		"nr_cpus", "programs", NULL
	};
	static const char *const skip[] = { "version", "interfaces", "lost",
					    "cpumap_kthreads", "kernel", NULL };
	struct json_object *ifs, *v;
	size_t i, n = 0;

	printf("rfsd %s\n", json_object_object_get_ex(st, "version", &v) ?
	       json_object_get_string(v) : "?");
	rfs_print_kv(stdout, st, "  ", order, skip);
	if (json_object_object_get_ex(st, "cpumap_kthreads", &v) &&
	    json_object_is_type(v, json_type_object))
		kthreads_plain(v);

	if (json_object_object_get_ex(st, "interfaces", &ifs) &&
	    json_object_is_type(ifs, json_type_array))
		n = json_object_array_length(ifs);
	for (i = 0; i < n; i++) {
		printf("\n");
		rfs_print_iface_plain(json_object_array_get_idx(ifs, i));
	}
	if (!n)
		printf("\nno interface attached\n");
	kernel_plain(st);
	if (json_object_object_get_ex(st, "lost", &ifs) &&
	    json_object_is_type(ifs, json_type_array)) {
		for (i = 0; i < json_object_array_length(ifs); i++) {
			struct json_object *l = json_object_array_get_idx(ifs, i),
					   *nm, *by;

			if (!json_object_object_get_ex(l, "name", &nm))
				continue;
			if (json_object_object_get_ex(l, "replaced_by", &by) &&
			    by)
				printf("\nlost %s: another tool replaced our XDP program with program %s\n",
				       json_object_get_string(nm),
				       json_object_get_string(by));
			else
				printf("\nlost %s: another tool detached our XDP program\n",
				       json_object_get_string(nm));
		}
	}
}

static void status_json(struct json_object *st)
{
	p_json(st);
}

int do_status(const struct rfsctl_cfg *g, const void *cfg)
{
	struct json_object *reply, *result;
	int ret;

	ret = rfs_call(g, rfs_req_new("status"), 0, &reply, &result);
	if (!ret)
		ret = rfs_expect(result, json_type_object, "the status");
	if (!ret) {
		if (g->json)
			status_json(result);
		else
			status_plain(result);
	}
	json_object_put(reply);
	return ret;
}

/* stats */

/* Datapath-wide counters; the others count per interface. */
static bool global_counter(const char *key)
{
	static const char *const keys[] = {
		"dequeued", "enqueue_drops", "sock_records", "sock_clears",
		"sock_skipped", "foreign", "recv_local", "recv_remote",
		"backlog", "kthread_wait_ns", "kthread_runs",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* A header row: the group title, "total", then a column per CPU. */
static void stats_header(struct rfs_table *t, const char *title,
			 struct json_object *per_cpu, size_t ncpu)
{
	struct json_object *cpu, *e;
	size_t i;

	rfs_table_add(t, title);
	rfs_table_add(t, "total");
	for (i = 0; i < ncpu; i++) {
		e = json_object_array_get_idx(per_cpu, i);
		if (json_object_object_get_ex(e, "cpu", &cpu))
			rfs_table_addf(t, "cpu%s", json_object_get_string(cpu));
		else
			rfs_table_addf(t, "cpu%zu", i);
	}
}

static size_t stats_count(struct json_object *total, bool global)
{
	size_t n = 0;

	json_object_object_foreach(total, key, val) {
		(void)val;
		n += global_counter(key) == global;
	}
	return n;
}

static void stats_rows(struct rfs_table *t, struct json_object *total,
		       struct json_object *per_cpu, size_t ncpu, bool global)
{
	char buf[64];
	size_t i;

	json_object_object_foreach(total, key, val) {
		if (global_counter(key) != global)
			continue;
		rfs_table_add(t, key);
		rfs_fmt_value(val, buf, sizeof(buf));
		rfs_table_add(t, buf);
		for (i = 0; i < ncpu; i++) {
			rfs_fmt_member(json_object_array_get_idx(per_cpu, i),
				       key, buf, sizeof(buf));
			rfs_table_add(t, buf);
		}
	}
}

static __u64 stats_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       (__u64)json_object_get_uint64(v) : 0;
}

/* recv_local as a share of the recvs that returned data: how often the
 * application read data the stack had processed on its own CPU. */
static void stats_locality_cell(struct rfs_table *t, struct json_object *o)
{
	__u64 hit = stats_u64(o, "recv_local");
	__u64 all = hit + stats_u64(o, "recv_remote");

	if (all)
		rfs_table_addf(t, "%.1f%%", 100.0 * hit / all);
	else
		rfs_table_add(t, "-");
}

static void stats_locality(struct rfs_table *t, struct json_object *total,
			   struct json_object *per_cpu, size_t ncpu)
{
	size_t i;

	if (!total || !(stats_u64(total, "recv_local") +
			stats_u64(total, "recv_remote")))
		return;
	rfs_table_add(t, "locality");
	stats_locality_cell(t, total);
	for (i = 0; i < ncpu; i++)
		stats_locality_cell(t, json_object_array_get_idx(per_cpu, i));
}

/* How long the CPU's cpumap kthread waited for its CPU per run, since it
 * was made: what frames steered there waited for other tasks. */
static void stats_kwait_cell(struct rfs_table *t, struct json_object *o)
{
	double us = NAN;

	if (json_object_object_get_ex(o, "kthread_wait_ns", NULL))
		us = rfs_top_kwait_us(stats_u64(o, "kthread_wait_ns"),
				      stats_u64(o, "kthread_runs"));
	if (isnan(us))
		rfs_table_add(t, "-");
	else
		rfs_table_addf(t, "%.1f us", us);
}

static void stats_kwait(struct rfs_table *t, struct json_object *total,
			struct json_object *per_cpu, size_t ncpu)
{
	size_t i;

	if (!total || !stats_u64(total, "kthread_runs"))
		return;
	rfs_table_add(t, "kthread wait/run");
	stats_kwait_cell(t, total);
	for (i = 0; i < ncpu; i++)
		stats_kwait_cell(t, json_object_array_get_idx(per_cpu, i));
}

static void stats_plain(struct json_object *st)
{
	struct json_object *total = NULL, *per_cpu = NULL, *ifc;
	struct rfs_table *t;
	char title[64];
	size_t i, ncpu = 0;
	bool *left;

	json_object_object_get_ex(st, "total", &total);
	if (json_object_object_get_ex(st, "per_cpu", &per_cpu) &&
	    json_object_is_type(per_cpu, json_type_array))
		ncpu = json_object_array_length(per_cpu);
	left = calloc(ncpu + 2, sizeof(*left));
	if (!left)
		return;
	left[0] = true;
	t = rfs_table_new(ncpu + 2, left);
	free(left);

	if (json_object_object_get_ex(st, "interface", &ifc) &&
	    json_object_is_type(ifc, json_type_string))
		snprintf(title, sizeof(title), "interface counters (%s)",
			 json_object_get_string(ifc));
	else
		snprintf(title, sizeof(title), "interface counters (all)");
	if (stats_count(total, false)) {
		stats_header(t, title, per_cpu, ncpu);
		stats_rows(t, total, per_cpu, ncpu, false);
	}
	if (stats_count(total, true)) {
		/* an empty row, then the datapath-wide group */
		if (stats_count(total, false))
			for (i = 0; i < ncpu + 2; i++)
				rfs_table_add(t, "");
		stats_header(t, "datapath counters", per_cpu, ncpu);
		stats_rows(t, total, per_cpu, ncpu, true);
	}
	stats_locality(t, total, per_cpu, ncpu);
	stats_kwait(t, total, per_cpu, ncpu);
	rfs_table_print(t, stdout, NULL);
	rfs_table_free(t);
}

static void stats_json(struct json_object *st)
{
	p_json(st);
}

/* rfs_prom_call_fn: one request to rfsd, as every command makes it. */
static int prom_call(void *ctx, struct json_object *req,
		     struct json_object **result, char *err, size_t len)
{
	struct json_object *reply, *r;
	int e;

	e = rfs_call_quiet(ctx, req, &reply, &r, err, len);
	if (e)
		return e;
	*result = json_object_get(r);
	json_object_put(reply);
	return 0;
}

/* The exposition of /metrics, built by the same code (rfs_prom.c) from
 * the same requests: for node_exporter's textfile collector. */
static int stats_prometheus(const struct rfsctl_cfg *g)
{
	struct json_object *snap;
	char err[RFS_CTL_ERR_LEN];
	int e;

	e = rfs_prom_collect(prom_call, (void *)g, &snap, err, sizeof(err));
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

int do_stats(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct stats_cfg *c = cfg;
	struct json_object *req, *reply, *result, *total;
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
	ret = rfs_call(g, req, 0, &reply, &result);
	if (!ret)
		ret = rfs_expect(result, json_type_object, "the stats result");
	if (!ret && (!json_object_object_get_ex(result, "total", &total) ||
		     !json_object_is_type(total, json_type_object)))
		ret = rfs_expect(NULL, json_type_object, "stats \"total\"");
	if (!ret) {
		if (g->json)
			stats_json(result);
		else
			stats_plain(result);
	}
	json_object_put(reply);
	return ret;
}
