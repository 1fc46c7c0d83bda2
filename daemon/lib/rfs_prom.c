// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "rfs_prom.h"

#define CTR(kind, part, f, help)					\
	{ #f, RFS_CTR_##kind, offsetof(struct rfs_cpu_ctrs, part.f), help }

const struct rfs_ctr rfs_ctrs[] = {
	CTR(IF, i, seen, "Frames the XDP program ran on, by interface and RX CPU."),
	CTR(IF, i, steered, "Frames steered: redirected to a CPU's cpumap queue or passed up on the RX CPU (to_desired + spread + held)."),
	CTR(IF, i, to_desired, "Steered frames sent to the CPU where the application reads the flow."),
	CTR(IF, i, spread, "Steered frames spread by hash: no desired CPU known or allowed."),
	CTR(IF, i, held, "Steered frames kept on the flow's old CPU until it drained its earlier frames (in-order rule)."),
	CTR(IF, i, local, "Steered frames passed up on their RX CPU, the application's CPU (also counted in steered)."),
	CTR(IF, i, switches, "Flows moved to another CPU."),
	CTR(IF, i, pass_not_ip, "Frames passed up unsteered: not IPv4 or IPv6."),
	CTR(IF, i, pass_fragment, "Frames passed up unsteered: IP fragments."),
	CTR(IF, i, pass_other_proto, "Frames passed up unsteered: neither TCP nor UDP."),
	CTR(IF, i, pass_truncated, "Frames passed up unsteered: headers cut short."),
	CTR(IF, i, pass_no_table, "Frames passed up unsteered: no config, flow table or allowed CPU, or a queue past the table."),
	CTR(IF, i, redirect_err, "Frames whose cpumap redirect failed: CPU missing from the cpumap (dropped when the flow's earlier frames may be in flight)."),
	CTR(IF, i, no_meta, "Held frames redirected without metadata (no headroom): their target CPU can't mark them (other frames go without it anyway)."),
	CTR(IF, i, early_drop, "Frames dropped at the RX CPU, before any redirect: their UDP socket refused a datagram moments ago (early drop; rfsd.conf early_drop)."),
	CTR(GLOBAL, g, dequeued, "Frames the CPU's cpumap queue handed to the stack (by target CPU)."),
	CTR(GLOBAL, g, enqueue_drops, "Frames dropped because a cpumap ring was full (ring drops, by the RX CPU that flushed)."),
	CTR(GLOBAL, g, early_drop_target, "Frames dropped by the CPU's cpumap program, before an skb was built: a UDP socket on that CPU refused their flow a datagram moments ago (early drop on the target)."),
	CTR(GLOBAL, g, recv_local, "Receive calls that returned data on a connected TCP/UDP socket whose last frame the stack processed on the reading CPU (locality hit)."),
	CTR(GLOBAL, g, recv_remote, "Receive calls that returned data on a connected TCP/UDP socket whose last frame the stack processed on another CPU (locality miss)."),
	CTR(GLOBAL, g, sock_records, "Sock flow table entries written."),
	CTR(GLOBAL, g, sock_clears, "Sock flow table entries cleared on close."),
	CTR(GLOBAL, g, sock_skipped, "Socket events skipped: unconnected, non-IP, or loopback sockets while no loopback interface is attached."),
	CTR(GLOBAL, g, foreign, "Frames the cpumap program ran on with metadata not xdp-rfs's (its own frames carry none or its own)."),
	CTR(KTHREAD, k, kthread_runs, "Times the CPU's cpumap kthread was scheduled in (the kernel's schedstat pcount, since the kthread was made)."),
	CTR(GAUGE, k, backlog, "Frames steered to the CPU that its cpumap program has not taken off the ring yet."),
	CTR(KWAIT, k, kthread_wait_ns, "Time the CPU's cpumap kthread waited on a run queue for its CPU (the kernel's schedstat run_delay, since the kthread was made): how long frames steered there waited for other tasks."),
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

const size_t rfs_n_ctrs = N(rfs_ctrs);

static struct json_object *member(struct json_object *o, const char *key,
				  enum json_type type)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

static size_t arr_len(struct json_object *a)
{
	return a ? json_object_array_length(a) : 0;
}

#define at(a, i)	json_object_array_get_idx(a, i)

static int call_cmd(rfs_prom_call_fn call, void *ctx, const char *cmd,
		    const char *iface, struct json_object **result,
		    char *err, size_t len)
{
	struct json_object *req = json_object_new_object();

	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	if (iface)
		json_object_object_add(req, "iface",
				       json_object_new_string(iface));
	return call(ctx, req, result, err, len);
}

int rfs_prom_collect(rfs_prom_call_fn call, void *ctx,
		     struct json_object **snap, char *err, size_t len)
{
	struct json_object *status = NULL, *stats = NULL, *ifs, *arr, *one, *o;
	const char *nm;
	size_t i;
	int e;

	*snap = NULL;
	e = call_cmd(call, ctx, "status", NULL, &status, err, len) ?:
	    call_cmd(call, ctx, "stats", NULL, &stats, err, len);
	if (e) {
		json_object_put(status);
		return e;
	}
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "status", status);
	json_object_object_add(o, "stats", stats);
	json_object_object_add(o, "interfaces", arr);
	ifs = member(status, "interfaces", json_type_array);
	for (i = 0; i < arr_len(ifs); i++) {
		nm = member_str(at(ifs, i), "name");
		e = nm ? call_cmd(call, ctx, "stats", nm, &one, err, len) :
			 -ENOENT;
		if (e == -ENOENT)	/* detached since status */
			continue;
		if (e) {
			json_object_put(o);
			return e;
		}
		json_object_array_add(arr, one);
	}
	*snap = o;
	return 0;
}

void rfs_prom_escape(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\' || (label && *s == '"'))
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* name is the whole metric name without "rfs_" */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP rfs_%s ", name);
	rfs_prom_escape(f, help, false);
	fprintf(f, "\n# TYPE rfs_%s %s\n", name, type);
}

/* key="v", v escaped ("unknown" if NULL), then end */
static void label(FILE *f, const char *key, const char *v, const char *end)
{
	fprintf(f, "%s=\"", key);
	rfs_prom_escape(f, v ?: "unknown", true);
	fprintf(f, "\"%s", end);
}

/* A metric name may hold [a-zA-Z0-9_:] and starts with no digit. */
static bool name_ok(const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:";

	return *s && !(*s >= '0' && *s <= '9') && !s[strspn(s, ok)];
}

/* One sample per CPU of per_cpu (an array of {"cpu": N, key: V}) that has
 * c's key, after c's family if it is the first (*head still false);
 * iface: the interface label, or NULL. */
static void samples(FILE *f, const struct rfs_ctr *c, const char *name,
		    const char *iface, struct json_object *per_cpu, bool *head)
{
	bool ns = c->kind == RFS_CTR_KWAIT;
	unsigned long long x;
	size_t i;

	for (i = 0; i < arr_len(per_cpu); i++) {
		struct json_object *cpu = member(at(per_cpu, i), "cpu",
						 json_type_int);
		struct json_object *v =
			member(at(per_cpu, i), c->key, json_type_int);

		if (!cpu || !v)
			continue;
		if (!*head)
			family(f, name,
			       c->kind == RFS_CTR_GAUGE ? "gauge" : "counter",
			       c->help);
		*head = true;
		fprintf(f, "rfs_%s{", name);
		if (iface)
			label(f, "interface", iface, ",");
		x = json_object_get_uint64(v);
		fprintf(f, "cpu=\"%d\"} ", json_object_get_int(cpu));
		if (ns)
			fprintf(f, "%llu.%09llu\n", x / 1000000000ULL,
				x % 1000000000ULL);
		else
			fprintf(f, "%llu\n", x);
	}
}

/* c's family: per interface and CPU (from ifs), or per CPU (per_cpu);
 * left out when it has no sample. */
static void series(FILE *f, const struct rfs_ctr *c, struct json_object *ifs,
		   struct json_object *per_cpu)
{
	char name[96];
	bool head = false;
	size_t i;

	snprintf(name, sizeof(name), "%s%s",
		 c->kind == RFS_CTR_KWAIT ? "kthread_wait_seconds" : c->key,
		 c->kind == RFS_CTR_GAUGE ? "" : "_total");
	if (c->kind != RFS_CTR_IF)
		samples(f, c, name, NULL, per_cpu, &head);
	for (i = 0; c->kind == RFS_CTR_IF && i < arr_len(ifs); i++) {
		const char *nm = member_str(at(ifs, i), "interface");

		if (nm)
			samples(f, c, name, nm,
				member(at(ifs, i), "per_cpu", json_type_array),
				&head);
	}
}

static const struct rfs_ctr *ctr_of(const char *key)
{
	size_t i;

	for (i = 0; i < N(rfs_ctrs); i++)
		if (!strcmp(key, rfs_ctrs[i].key))
			return &rfs_ctrs[i];
	return NULL;
}

bool rfs_prom_global(const char *key)
{
	const struct rfs_ctr *c = ctr_of(key);

	return c && c->kind != RFS_CTR_IF;
}

static void gauge(FILE *f, const char *name, const char *help,
		  struct json_object *v)
{
	if (!v)
		return;
	family(f, name, "gauge", help);
	fprintf(f, "rfs_%s %lld\n", name, (long long)json_object_get_int64(v));
}

/* How a gauge of an interface is read from its entry in status. */
enum if_val {
	V_MODE,		/* 1, labelled with its mode; the family always */
	V_NUM,		/* key's number, or its array's length */
	V_HELD,		/* key's number (0 if none) while "leaving" is there */
	V_WAIT,		/* "leaving"'s longest "waited_ms", in seconds */
	V_LOST,		/* 1, for each of status' "lost" */
};

/*
 * rfs_interface_<name>, each left out where its value is.  CPUs taken
 * out of an interface's set wait for its flows to drain ("leaving"): a
 * removal that never finishes shows as a wait that only grows.
 */
static const struct if_gauge {
	const char *name, *key;
	enum if_val how;
	const char *help;
} if_gauges[] = {
	{ "attached", NULL, V_MODE, "1 for each interface xdp-rfs is attached to, with its XDP mode." },
	{ "rx_queues", "rx_queues", V_NUM, "RX queues the interface allocated (each has its own run of the flow table)." },
	{ "flow_cnt", "flow_cnt", V_NUM, "Entries of each of the interface's device flow tables (per RX queue)." },
	{ "cpus", "cpus", V_NUM, "CPUs the interface's flows may be steered to (as configured)." },
	{ "active_cpus", "active_cpus", V_NUM, "CPUs the interface's flows are steered to now (configured and online)." },
	{ "leaving_cpus", "leaving", V_NUM, "CPUs removed from the interface's set that stay usable until their flows are proven drained (in order)." },
	{ "held_flows", "held_flows", V_HELD, "Flows keeping a leaving CPU usable: their last frame there is not yet proven delivered." },
	{ "leaving_wait_seconds", NULL, V_WAIT, "How long the interface's oldest leaving CPU has waited for its flows to drain; 0 when none is leaving." },
	{ "lost", NULL, V_LOST, "1 for each configured interface whose XDP program another tool detached or replaced." },
};

static bool if_value(const struct if_gauge *g, struct json_object *o,
		     long long *v)
{
	struct json_object *lv = member(o, "leaving", json_type_array), *x;
	size_t j;

	switch (g->how) {
	case V_NUM:
		x = member(o, g->key, json_type_array);
		if (x) {
			*v = arr_len(x);
			return true;
		}
		/* fall through */
	case V_HELD:
		x = member(o, g->key, json_type_int);
		*v = x ? json_object_get_int64(x) : 0;
		return g->how == V_NUM ? x != NULL : lv != NULL;
	case V_WAIT:
		for (*v = 0, j = 0; j < arr_len(lv); j++) {
			x = member(at(lv, j), "waited_ms", json_type_int);
			if (x && json_object_get_int64(x) > *v)
				*v = json_object_get_int64(x);
		}
		return lv;
	default:
		*v = 1;
		return true;
	}
}

static void interfaces(FILE *f, struct json_object *status)
{
	const struct if_gauge *g;
	struct json_object *ifs, *o;
	char name[64];
	bool head;
	long long v;
	size_t i;

	for (g = if_gauges; g < if_gauges + N(if_gauges); g++) {
		snprintf(name, sizeof(name), "interface_%s", g->name);
		ifs = member(status, g->how == V_LOST ? "lost" : "interfaces",
			     json_type_array);
		head = g->how == V_MODE;
		if (head)
			family(f, name, "gauge", g->help);
		for (i = 0; i < arr_len(ifs); i++) {
			o = at(ifs, i);
			if (!member_str(o, "name") || !if_value(g, o, &v))
				continue;
			if (!head)
				family(f, name, "gauge", g->help);
			head = true;
			fprintf(f, "rfs_%s{", name);
			label(f, "interface", member_str(o, "name"),
			      g->how == V_MODE ? "," : "");
			if (g->how == V_MODE)
				label(f, "mode", member_str(o, "mode"), "");
			if (g->how == V_WAIT)
				fprintf(f, "} %lld.%03lld\n", v / 1000, v % 1000);
			else
				fprintf(f, "} %lld\n", v);
		}
	}
}

int rfs_prom_format(FILE *f, struct json_object *snap)
{
	struct json_object *status = member(snap, "status", json_type_object);
	struct json_object *stats = member(snap, "stats", json_type_object);
	struct json_object *ifs = member(snap, "interfaces", json_type_array);
	struct json_object *per_cpu, *first;
	struct rfs_ctr other = { .kind = RFS_CTR_GLOBAL };
	char help[160];
	size_t k;

	if (!status || !stats)
		return -EINVAL;
	per_cpu = member(stats, "per_cpu", json_type_array);

	family(f, "build_info", "gauge",
	       "rfsd's version and the commit it was built from; always 1.");
	fputs("rfs_build_info{", f);
	label(f, "version", member_str(status, "version"), ",");
	label(f, "commit", member_str(status, "commit"), "} 1\n");
	gauge(f, "cpus", "Possible CPUs: the per-CPU counters have one series each.",
	      member(status, "nr_cpus", json_type_int));
	gauge(f, "sock_flow_entries",
	      "Entries of the sock flow table shared by every interface.",
	      member(status, "sock_flow_entries", json_type_int));
	interfaces(f, status);

	for (k = 0; k < N(rfs_ctrs); k++)
		series(f, &rfs_ctrs[k], ifs, per_cpu);
	/* a newer rfsd's counters: still exposed, per CPU */
	first = arr_len(per_cpu) ? at(per_cpu, 0) : NULL;
	if (json_object_is_type(first, json_type_object)) {
		json_object_object_foreach(first, key, val) {
			if (ctr_of(key) || !strcmp(key, "cpu") || !name_ok(key) ||
			    !json_object_is_type(val, json_type_int))
				continue;
			snprintf(help, sizeof(help),
				 "rfsd's counter '%s' (rfsctl stats), summed over interfaces.",
				 key);
			other.key = key;
			other.help = help;
			series(f, &other, NULL, per_cpu);
		}
	}
	return 0;
}
