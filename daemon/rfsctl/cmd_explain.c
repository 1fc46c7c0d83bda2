// SPDX-License-Identifier: GPL-2.0
/* explain: rfsd reads the maps and runs the datapath's own decision on
 * them (docs/protocol.md, "explain"); this only checks the words and
 * prints the answer. */
#include <arpa/inet.h>

#include "rfsctl.h"

static const char *const explain_protos[] = { "tcp", "udp", NULL };

static const struct explain_cfg {
	const char *iface;
	const char *src;
	const char *dst;
	int sport;
	int dport;
	const char *proto;
	int rx_cpu;
} explain_defaults = { .sport = -1, .dport = -1, .rx_cpu = -1 };

static const struct rfs_opt explain_opts[] = {
	IFACE_OPTION(struct explain_cfg,
		     "the attached interface the frames arrive on"),
	DEFINE_OPTION("src", OPT_STRING, struct explain_cfg, src,
		      .positional = true, .metavar = "SRC", .key = "src",
		      .help = "their source address (the peer), IPv4 or IPv6"),
	DEFINE_OPTION("dst", OPT_STRING, struct explain_cfg, dst,
		      .positional = true, .metavar = "DST", .key = "dst",
		      .help = "their destination address (this host)"),
	DEFINE_OPTION("sport", OPT_INT, struct explain_cfg, sport,
		      .positional = true, .optional = true, .metavar = "SPORT",
		      .max = 65535, .noun = "port number", .key = "sport",
		      .help = "source port; with no ports: not TCP or UDP"),
	DEFINE_OPTION("dport", OPT_INT, struct explain_cfg, dport,
		      .positional = true, .optional = true, .metavar = "DPORT",
		      .max = 65535, .noun = "port number", .key = "dport",
		      .help = "destination port"),
	DEFINE_OPTION("proto", OPT_ENUM, struct explain_cfg, proto,
		      .positional = true, .optional = true, .metavar = "PROTO",
		      .values = explain_protos,
		      .help = "the transport (default: tcp)"),
	DEFINE_OPTION("rx-cpu", OPT_INT, struct explain_cfg, rx_cpu,
		      .metavar = "CPU", .max = RFS_MAX_CPUS - 1,
		      .noun = "CPU number", .key = "rx_cpu",
		      .help = "for frames that arrive on CPU (default: its last RX CPU)"),
	END_OPTIONS
};

static int family(const char *s)
{
	unsigned char a[16];

	return inet_pton(AF_INET, s, a) == 1 ? AF_INET :
	       inet_pton(AF_INET6, s, a) == 1 ? AF_INET6 : 0;
}

#define str(o, key)		rfs_str(o, key, NULL)
#define num(o, key, dflt)	rfs_num(o, key, dflt)
#define obj(o, key)		rfs_get(o, key)

static void print_entry(const char *label, long long slot,
			struct json_object *e)
{
	printf("    %s %lld: ", label, slot);
	if (!e || !rfs_bool(e, "valid")) {
		printf("empty\n");
		return;
	}
	if (!strcmp(rfs_str(e, "path", ""), "local"))
		printf("local path on CPU %lld, last frame at jiffy %lld\n",
		       num(e, "cpu", -1), num(e, "jiffy", -1));
	else
		printf("cpumap to CPU %lld from RX CPU %lld, last frame seq %lld\n",
		       num(e, "cpu", -1), num(e, "rx_cpu", -1),
		       num(e, "seq", -1));
}

static void print_order(struct json_object *o)
{
	static const char *const names[] = { "last", "prev", "jiffy1",
					     "jiffy2", "done" };
	struct json_object *marks = obj(o, "marks"), *k, *m;
	size_t i;

	printf("    order RX CPU %lld -> CPU %lld: flow seq %lld, sent up to %s; marks",
	       num(o, "rx_cpu", -1), num(o, "cpu", -1), num(o, "flow_seq", -1),
	       rfs_str(o, "sent_seq", "-"));
	if (!marks || !obj(marks, "last"))
		printf(" none");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((m = obj(marks, names[i])))
			printf(" %s %lld@%lld", names[i], num(m, "seq", 0),
			       num(m, "epoch", 0));
	k = obj(o, "kthread_asleep_now");
	printf("; epoch %s, delivered %s; kthread %s now\n",
	       rfs_str(o, "epoch", "-"), rfs_str(o, "delivered_epoch", "-"),
	       !k ? "state unknown" :
	       json_object_get_boolean(k) ? "asleep" : "running");
}

static void print_hold(struct json_object *h)
{
	long long cpu = num(h, "cpu", -1), ms = num(h, "leaving_waited_ms", -1);

	printf("    held on CPU %lld: %s\n", cpu, str(h, "why"));
	if (rfs_bool(h, "cpu_leaving"))
		printf("    CPU %lld is leaving this interface (removed %lld.%lld s ago): it is released once this flow and the others there drain (rfsctl status)\n",
		       cpu, ms / 1000, ms % 1000 / 100);
}

static void explain_plain(struct json_object *r, const void *arg)
{
	struct json_object *sock = obj(r, "sock"), *qs = obj(r, "rx_queues");
	bool v6 = strchr(rfs_str(r, "src", ""), ':') != NULL;
	size_t i, j;

	if (obj(r, "sport"))
		printf("%s: %s %s%s%s:%lld -> %s%s%s:%lld\n", str(r, "iface"),
		       str(r, "proto"), v6 ? "[" : "", str(r, "src"),
		       v6 ? "]" : "", num(r, "sport", 0), v6 ? "[" : "",
		       str(r, "dst"), v6 ? "]" : "", num(r, "dport", 0));
	else
		printf("%s: %s -> %s, not TCP or UDP\n", str(r, "iface"),
		       str(r, "src"), str(r, "dst"));
	if (str(r, "hash"))
		printf("  hash %s\n", str(r, "hash"));
	if (sock) {
		printf("  sock flow slot %lld of %lld: ", num(sock, "slot", -1),
		       num(sock, "entries", -1));
		if (rfs_bool(sock, "empty"))
			printf("empty: no desired CPU\n");
		else if (!rfs_bool(sock, "tag_match"))
			printf("entry %s, tag does not match (another flow's): no desired CPU\n",
			       str(sock, "entry"));
		else
			printf("entry %s, tag matches: desired CPU %lld\n",
			       str(sock, "entry"), num(r, "desired_cpu", -1));
	}
	printf("  local path %s\n", rfs_bool(r, "local_path") ? "on" : "off");
	if (rfs_bool(r, "kernel_rps"))
		printf("  kernel RPS ON: after xdp-rfs the stack moves these frames into another CPU's backlog, which CPU reads them is RPS's choice (write 0 to rps_cpus)\n");
	for (i = 0; i < rfs_len(qs); i++) {
		struct json_object *q = json_object_array_get_idx(qs, i);
		struct json_object *cases = obj(q, "cases");

		printf("  rx queue %lld:\n", num(q, "rx_queue", -1));
		if (!obj(q, "slot") && sock)
			printf("    no dev flow table\n");
		else if (obj(q, "slot"))
			print_entry("dev slot", num(q, "slot", -1),
				    obj(q, "entry"));
		if (obj(q, "prev_slot"))
			print_entry("previous table's slot",
				    num(q, "prev_slot", -1),
				    obj(q, "prev_entry"));
		if (obj(q, "order"))
			print_order(obj(q, "order"));
		if (obj(q, "hold"))
			print_hold(obj(q, "hold"));
		for (j = 0; j < rfs_len(cases); j++) {
			struct json_object *c = json_object_array_get_idx(cases, j);

			printf("    arriving on CPU %lld: %s\n",
			       num(c, "rx_cpu", -1), str(c, "why"));
		}
	}
}

static int do_explain(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct explain_cfg *c = cfg;
	int fa = family(c->src), fb = family(c->dst);
	struct json_object *req;

	if (!fa || !fb)
		return p_usage("explain", "can't parse address '%s': not an IPv4 or IPv6 address",
			       fa ? c->dst : c->src);
	if (fa != fb)
		return p_usage("explain", "can't parse address '%s': not of the family of '%s'",
			       c->dst, c->src);
	if ((c->sport < 0) != (c->dport < 0))
		return p_usage("explain", "SPORT and DPORT go together (PROTO needs both)");
	req = rfs_req_new("explain", explain_opts, cfg);
	if (c->sport >= 0)
		json_object_object_add(req, "proto",
				       json_object_new_string(c->proto ?: "tcp"));
	return rfs_show(g, req, 0, NULL, json_type_object, "explain",
			explain_plain, NULL);
}

const struct rfs_cmd rfs_cmd_explain = DEFINE_COMMAND("explain", explain,
	do_explain, "Explain where a flow's next frame goes, and why.");
