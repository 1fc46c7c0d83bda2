// SPDX-License-Identifier: GPL-2.0
/* rfsd --check-config: a rollout's dry run, reading the config and this
 * netns through the functions rfsd starts with; it attaches nothing. */
#include <stdlib.h>

#include "commands.h"
#include "rfsd.h"

struct check {
	struct json_object *rows;
	bool json, bad;
};

/* One interface's row, in JSON or as a line of text. */
static void check_row(struct check *ck, const char *name,
		      const struct rfsd_iface_cfg *ic, const char *action,
		      const char *why)
{
	struct json_object *o = json_object_new_object();
	__u32 flow_cnt = ic->flow_cnt ?: RFS_FLOW_CNT_DEFAULT;
	const char *mode = rfs_xdp_mode_name(ic->mode);
	char label[300], buf[300];
	struct rfs_cpuset set;

	rfsd_iface_cfg_label(ic, label, sizeof(label));
	if (!why && rfsd_iface_cpus(ic, &set, buf, sizeof(buf))) {
		action = "error";
		why = buf;
		ck->bad = true;
	}
	rfsd_add(o, "name", rfsd_jstr(name));
	rfsd_add(o, "section", rfsd_jstr(label));
	rfsd_add(o, "action", rfsd_jstr(action));
	rfsd_add(o, "why", rfsd_jstr(why));
	if (!why) {
		rfs_cpulist_format(&set, buf, sizeof(buf));
		rfsd_add(o, "cpus", rfsd_jstr(buf[0] ? buf : "all"));
		rfsd_add(o, "flow_cnt", rfsd_jint(flow_cnt));
		rfsd_add(o, "mode", rfsd_jstr(mode));
		rfsd_add(o, "noguard", rfsd_jbool(ic->noguard));
	}
	json_object_array_add(ck->rows, o);
	if (ck->json)
		return;
	printf("%-6s %-15s %s: ", action, name, label);
	if (why)
		printf("%s\n", why);
	else
		printf("cpus %s, flow_cnt %u, mode %s%s\n",
		       buf[0] ? buf : "all", flow_cnt, mode,
		       ic->noguard ? ", noguard" : "");
}

int rfsd_check_config(const char *path, bool must_exist, bool unsafe_noguard,
		      bool json)
{
	struct check ck = { .rows = json_object_new_array(), .json = json };
	struct json_object *top = json_object_new_object();
	const struct rfsd_iface_cfg *ic;
	char err[RFSD_CONFIG_ERR_LEN];
	struct rfsd_config cfg;
	struct rfsd_link *l = NULL;
	size_t i, n = 0, unpicked = 0;
	const char *why;
	int e;

	rfsd_add(top, "config", rfsd_jstr(path));
	rfsd_add(top, "interfaces", ck.rows);
	e = rfsd_config_load(path, must_exist, unsafe_noguard, &cfg, err);
	if (!e && (e = rfsd_netns_links(&l, &n, rfsd_config_wants_routes(&cfg))))
		snprintf(err, sizeof(err), "can't list the interfaces: %s",
			 strerror(-e));
	if (e) {
		if (json)
			printf("{\"error\":%s}\n",
			       json_object_to_json_string(rfsd_jstr(err)));
		else
			fprintf(stderr, "rfsd: %s\n", err);
		rfsd_config_free(&cfg);
		json_object_put(top);
		return EXIT_FAILURE;
	}
	for (i = 0; i < n; i++) {
		why = rfsd_config_match(&cfg, &l[i], &ic);
		if (ic)
			check_row(&ck, l[i].name, ic, why ? "skip" : "attach", why);
		unpicked += !ic;
	}
	for (i = 0; i < cfg.n_ifs; i++)
		if (!cfg.ifs[i].match && !if_nametoindex(cfg.ifs[i].name))
			check_row(&ck, cfg.ifs[i].name, &cfg.ifs[i], "wait",
				  "not present; attached when it appears");
	rfsd_add(top, "not_picked", rfsd_jint(unpicked));
	rfsd_add(top, "valid", rfsd_jbool(!ck.bad));
	if (json)
		printf("%s\n", json_object_to_json_string_ext(top,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		printf("%zu other interface%s picked by no section; config '%s' %s\n",
		       unpicked, unpicked == 1 ? "" : "s", path,
		       ck.bad ? "has errors on this node" : "is valid");
	free(l);
	rfsd_config_free(&cfg);
	json_object_put(top);
	return ck.bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
