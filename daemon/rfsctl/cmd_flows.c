// SPDX-License-Identifier: GPL-2.0
/*
 * flows: rfsd counts frames per flow for the interval, then answers with
 * the busiest flows, so the reply takes that long: the wait for it is
 * stretched by the interval.
 */
#include <stdlib.h>

#include "rfsctl.h"

#define FLOWS_INTERVAL_DEFAULT	500	/* ms, docs/protocol.md */

const struct rfs_opt flows_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct flows_cfg, iface,
		      .positional = true, .optional = true,
		      .metavar = "IFACE",
		      .help = "an attached interface (default: all of them)"),
	DEFINE_OPTION("limit", OPT_UINT, struct flows_cfg, limit,
		      .metavar = "N",
		      .help = "show at most N flows (default: 20)"),
	DEFINE_OPTION("interval", OPT_UINT, struct flows_cfg, interval,
		      .metavar = "MS",
		      .help = "count frames for MS milliseconds (default: 500)"),
	END_OPTIONS
};
const struct flows_cfg flows_defaults;

static void flows_plain(struct json_object *flows, unsigned int interval)
{
	static const struct {
		const char *key, *title;
		bool left;
	} cols[] = {
		{ "iface", "iface", true },
		{ "rx_queue", "rxq", false },
		{ "hash", "hash", true },
		{ "frames", "frames", false },
		{ "desired_cpu", "desired", false },
		{ "current_cpu", "current", false },
		{ "path", "path", true },
	};
	const size_t ncols = sizeof(cols) / sizeof(cols[0]);
	struct json_object *flow;
	bool left[sizeof(cols) / sizeof(cols[0])];
	struct rfs_table *t;
	size_t i, c, n;
	char buf[64];

	n = json_object_array_length(flows);
	if (!n) {
		printf("no flows seen in %u ms\n", interval);
		return;
	}
	for (c = 0; c < ncols; c++)
		left[c] = cols[c].left;
	t = rfs_table_new(ncols, left);
	for (c = 0; c < ncols; c++)
		rfs_table_add(t, cols[c].title);
	for (i = 0; i < n; i++) {
		flow = json_object_array_get_idx(flows, i);
		for (c = 0; c < ncols; c++) {
			rfs_fmt_member(flow, cols[c].key, buf, sizeof(buf));
			rfs_table_add(t, buf);
		}
	}
	rfs_table_print(t, stdout, NULL);
	rfs_table_free(t);
}

static void flows_json(struct json_object *flows)
{
	/* the array itself, not rfsd's {"flows": [...]} */
	p_json(flows);
}

int do_flows(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct flows_cfg *c = cfg;
	struct json_object *req = rfs_req_new("flows");
	struct json_object *reply, *result, *flows = NULL;
	unsigned int interval;
	int ret;

	if (c->iface)
		rfs_req_add_str(req, "iface", c->iface);
	if (c->limit)
		rfs_req_add_int(req, "limit", c->limit);
	if (c->interval)
		rfs_req_add_int(req, "interval_ms", c->interval);
	interval = c->interval ? c->interval : FLOWS_INTERVAL_DEFAULT;

	/* rfsd caps the interval (and says so); don't wait past a minute */
	ret = rfs_call(g, req, interval < 60000 ? interval : 60000, &reply,
		       &result);
	if (!ret)
		json_object_object_get_ex(result, "flows", &flows);
	if (!ret)
		ret = rfs_expect(flows, json_type_array, "\"flows\"");
	if (!ret) {
		if (g->json)
			flows_json(flows);
		else
			flows_plain(flows, interval);
	}
	json_object_put(reply);
	return ret;
}
