// SPDX-License-Identifier: GPL-2.0
/*
 * The config on this node: which links its sections pick (names, globs,
 * default routes, excludes), what its CPU words mean here (isolated,
 * housekeeping), and rfsd --check-config, the dry run of a rollout, which
 * reads the config and this network namespace exactly as rfsd would at
 * start, through the same functions, and attaches nothing.
 */
#include <errno.h>
#include <fnmatch.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "config.h"
#include "netlink.h"
#include "rfs_names.h"

/* A CPU list sysfs keeps under root; a missing or empty file, or the
 * "(null)" of nohz_full on some kernels, is no CPU. */
static void sysfs_cpus(const char *root, const char *file,
		       struct rfs_cpuset *set)
{
	char path[512], buf[1024] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", root, file);
	rfs_cpuset_zero(set);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f) && rfs_cpulist_parse_clamped(buf, set))
		rfs_cpuset_zero(set);
	if (f)
		fclose(f);
}

struct cpus_walk {
	const char *root;
	struct rfs_cpuset add, del;
	bool adds, dels, named;
};

static int cpus_word(const char *w, void *arg)
{
	struct cpus_walk *c = arg;
	struct rfs_cpuset s, iso, more;
	bool neg = w[0] == '!';
	int i, e = 0;

	w += neg;
	c->adds |= !neg;
	c->dels |= neg;
	rfs_cpuset_zero(&s);
	if (!strcmp(w, "all") || !strcmp(w, "isolated") ||
	    !strcmp(w, "housekeeping")) {
		c->named = true;
		if (!c->root)
			return 0;	/* only the spelling is checked */
		sysfs_cpus(c->root, "isolated", &iso);
		sysfs_cpus(c->root, "nohz_full", &more);
		for (i = 0; i < RFS_CPU_WORDS; i++)
			iso.bits[i] |= more.bits[i];
		sysfs_cpus(c->root, "online", &s);
		for (i = 0; i < RFS_CPU_WORDS; i++)
			s.bits[i] = w[0] == 'a' ? s.bits[i] :
				    w[0] == 'i' ? iso.bits[i] & s.bits[i] :
				    s.bits[i] & ~iso.bits[i];
	} else {
		e = rfs_cpulist_parse(w, &s);
	}
	for (i = 0; i < RFS_CPU_WORDS; i++)
		(neg ? &c->del : &c->add)->bits[i] |= s.bits[i];
	return e;
}

int rfsd_cpus_resolve(const char *spec, const char *root,
		      struct rfs_cpuset *out)
{
	struct cpus_walk c = { .root = root };
	int i, e;

	rfs_cpuset_zero(out);
	if (!spec || !strcmp(spec, "all"))
		return 0;
	e = rfsd_for_words(spec, cpus_word, &c);
	if (e || (!c.adds && !c.dels))
		return e ?: -EINVAL;
	if (c.named && !root)
		return 0;
	if (!c.adds)
		cpus_word("all", &c);
	for (i = 0; i < RFS_CPU_WORDS; i++)
		out->bits[i] = c.add.bits[i] & ~c.del.bits[i];
	return rfs_cpuset_count(out) ? 0 : -ENOENT;
}

struct pick {
	const struct rfsd_link *l;
	bool hit;
};

/* A word without '!' that picks l counts; one with '!' vetoes. */
static int word_picks(const char *w, void *arg)
{
	struct pick *p = arg;
	bool neg = w[0] == '!', hit;

	w += neg;
	hit = !strcmp(w, "default-route") ? p->l->default_route :
	      !fnmatch(w, p->l->name, 0);
	p->hit |= hit && !neg;
	return hit && neg;
}

static bool words_pick(const char *words, const struct rfsd_link *l)
{
	struct pick p = { .l = l };

	return !rfsd_for_words(words, word_picks, &p) && p.hit;
}

const char *rfsd_config_match(const struct rfsd_config *cfg,
			      const struct rfsd_link *l,
			      const struct rfsd_iface_cfg **ic)
{
	size_t i;

	*ic = rfsd_config_iface(cfg, l->name);
	if (*ic)
		return NULL;	/* named: attached, or refused, as asked */
	for (i = 0; i < cfg->n_ifs && !*ic; i++)
		if (cfg->ifs[i].match && words_pick(cfg->ifs[i].match, l))
			*ic = &cfg->ifs[i];
	if (!*ic)
		return "no section picks it";
	if (cfg->exclude && words_pick(cfg->exclude, l))
		return "excluded ('exclude' picks it)";
	if (l->flags & IFF_LOOPBACK)
		return "loopback";
	if (l->type != ARPHRD_ETHER)
		return "not Ethernet (the XDP program parses Ethernet frames)";
	return NULL;
}

bool rfsd_config_wants_routes(const struct rfsd_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->n_ifs; i++)
		if (cfg->ifs[i].match && strstr(cfg->ifs[i].match, "default-route"))
			return true;
	return cfg->exclude && strstr(cfg->exclude, "default-route");
}

static void check_row(struct json_object *rows, const char *name,
		      const struct rfsd_iface_cfg *ic, const char *action,
		      const char *why)
{
	struct json_object *o = json_object_new_object();
	struct rfs_cpuset set;
	char buf[300];
	int e;

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "section", json_object_new_string(
				       rfsd_iface_cfg_label(ic, buf, sizeof(buf))));
	e = why ? 0 : rfsd_cpus_resolve(ic->cpus, "", &set);
	if (e) {
		action = "error";
		snprintf(buf, sizeof(buf), "cpus '%s' %s", ic->cpus,
			 e == -ENOENT ? "leaves no CPU on this node" : strerror(-e));
		why = buf;
	}
	json_object_object_add(o, "action", json_object_new_string(action));
	json_object_object_add(o, "why", why ? json_object_new_string(why) : NULL);
	if (!why) {
		rfs_cpulist_format(&set, buf, sizeof(buf));
		json_object_object_add(o, "cpus", json_object_new_string(buf[0] ?
				       buf : "all"));
		json_object_object_add(o, "flow_cnt", json_object_new_int64(
				       ic->flow_cnt ?: RFS_FLOW_CNT_DEFAULT));
		json_object_object_add(o, "mode", json_object_new_string(
				       rfs_xdp_mode_name(ic->mode)));
		json_object_object_add(o, "noguard",
				       json_object_new_boolean(ic->noguard));
	}
	json_object_array_add(rows, o);
}

static const char *jstr(struct json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

int rfsd_check_config(const char *path, bool must_exist, bool unsafe_noguard,
		      bool json)
{
	struct json_object *top = json_object_new_object(), *rows, *o;
	const struct rfsd_iface_cfg *ic;
	char err[RFSD_CONFIG_ERR_LEN];
	struct rfsd_config cfg;
	struct rfsd_link *l = NULL;
	size_t i, n = 0, unpicked = 0;
	int e, bad = 0;
	const char *why;

	e = rfsd_config_load(path, must_exist, &cfg, err) ?:
	    rfsd_config_check_noguard(&cfg, path, unsafe_noguard, err);
	if (!e && (e = rfsd_netlink_links(&l, &n, rfsd_config_wants_routes(&cfg))))
		snprintf(err, sizeof(err), "can't list the interfaces: %s",
			 strerror(-e));
	if (e) {
		if (json)
			printf("{\"error\":%s}\n", json_object_to_json_string(
				       json_object_new_string(err)));
		else
			fprintf(stderr, "rfsd: %s\n", err);
		rfsd_config_free(&cfg);
		json_object_put(top);
		return EXIT_FAILURE;
	}
	rows = json_object_new_array();
	for (i = 0; i < n; i++) {
		why = rfsd_config_match(&cfg, &l[i], &ic);
		if (ic)
			check_row(rows, l[i].name, ic, why ? "skip" : "attach", why);
		unpicked += !ic;
	}
	for (i = 0; i < cfg.n_ifs; i++)
		if (!cfg.ifs[i].match && !if_nametoindex(cfg.ifs[i].name))
			check_row(rows, cfg.ifs[i].name, &cfg.ifs[i], "wait",
				  "not present; attached when it appears");
	json_object_object_add(top, "config", json_object_new_string(path));
	json_object_object_add(top, "interfaces", rows);
	json_object_object_add(top, "not_picked", json_object_new_int64(unpicked));
	for (i = 0; i < json_object_array_length(rows); i++) {
		o = json_object_array_get_idx(rows, i);
		bad |= !strcmp(jstr(o, "action"), "error");
		if (json)
			continue;
		printf("%-6s %-15s %s: ", jstr(o, "action"), jstr(o, "name"),
		       jstr(o, "section"));
		if (jstr(o, "why"))
			printf("%s\n", jstr(o, "why"));
		else
			printf("cpus %s, flow_cnt %s, mode %s%s\n", jstr(o, "cpus"),
			       jstr(o, "flow_cnt"), jstr(o, "mode"),
			       json_object_get_boolean(json_object_object_get(o,
				       "noguard")) ? ", noguard" : "");
	}
	json_object_object_add(top, "valid", json_object_new_boolean(!bad));
	if (json)
		printf("%s\n", json_object_to_json_string_ext(top,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		printf("%zu other interface%s picked by no section; config '%s' %s\n",
		       unpicked, unpicked == 1 ? "" : "s", path,
		       bad ? "has errors on this node" : "is valid");
	free(l);
	rfsd_config_free(&cfg);
	json_object_put(top);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
