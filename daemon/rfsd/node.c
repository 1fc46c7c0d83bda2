// SPDX-License-Identifier: GPL-2.0
/* The config on this node: which links its sections pick and what its CPU
 * words mean here.  Pure but for reading sysfs: rfsd, --check-config, the
 * unit tests and the fuzzer run the same code. */
#include <fnmatch.h>
#include <net/if_arp.h>

#include "rfsd.h"

const char *rfsd_iface_cfg_label(const struct rfsd_iface_cfg *ic, char *buf,
				 size_t len)
{
	snprintf(buf, len, "[interface %s]", ic->match ?: ic->name);
	return buf;
}

int rfsd_for_words(const char *s, int (*fn)(const char *w, void *arg),
		     void *arg)
{
	char buf[512], *save = NULL, *w;
	int r = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (w = strtok_r(buf, " \t", &save); w && !r;
	     w = strtok_r(NULL, " \t", &save))
		r = fn(w, arg);
	return r;
}

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
	if (f && fgets(buf, sizeof(buf), f) && rfs_cpulist_parse(buf, set, true))
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
		e = rfs_cpulist_parse(w, &s, false);
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

int rfsd_iface_cpus(const struct rfsd_iface_cfg *ic, struct rfs_cpuset *set,
		    char *err, size_t len)
{
	int e = rfsd_cpus_resolve(ic->cpus, "", set);

	if (e)
		snprintf(err, len, "cpus '%s' %s", ic->cpus,
			 e == -ENOENT ? "leaves no CPU on this node" : strerror(-e));
	return e;
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

const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_ifs; i++)
		if (!cfg->ifs[i].match && !strcmp(cfg->ifs[i].name, name))
			return &cfg->ifs[i];
	return NULL;
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
