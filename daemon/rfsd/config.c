// SPDX-License-Identifier: GPL-2.0
/*
 * rfsd.conf parsing with inih.  inih tells its handler neither the line
 * number nor that a section started, and it takes an indented line as the
 * continuation of the previous value; so the file goes through our own
 * reader, which counts lines, strips leading blanks (no continuations:
 * every value is one line) and sees each [section] header as it passes.
 * Keys are read through tables, so each kind of value is checked, and
 * worded, once.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>

#include <ini.h>

#include "rfsd.h"

enum rfsd_section { SEC_NONE, SEC_GLOBAL, SEC_IFACE, SEC_BAD };

struct rfsd_parse {
	FILE *f;
	const char *path;
	struct rfsd_config *cfg;
	int lineno;		/* of the line inih is working on */
	enum rfsd_section sec;
	struct rfsd_iface_cfg *ifc;	/* in [interface ...] */
	int err;		/* first error */
	char *msg;
};

/* from K_STRING on, a copy of the value (a char *) */
enum key_kind { K_POW2, K_SIZE, K_BOOL, K_SECONDS, K_KSCHED, K_MODE,
		K_STRING, K_PATH = K_STRING, K_GROUP, K_LISTEN, K_WORDS, K_CPUS };

struct key {
	const char *name;
	enum key_kind kind;
	size_t off;
	__u32 lo, hi;
};

#define G(n, k, f, ...) \
	{ .name = n, .kind = k, .off = offsetof(struct rfsd_config, f), __VA_ARGS__ }
#define I(n, k, f, ...) \
	{ .name = n, .kind = k, .off = offsetof(struct rfsd_iface_cfg, f), __VA_ARGS__ }
static const struct key global_keys[] = {
	G("sock_flow_entries", K_POW2, sock_flow_entries,
	  .lo = RFS_SOCK_FLOW_MIN, .hi = RFS_SOCK_FLOW_MAX),
	G("socket", K_PATH, socket),
	G("socket_group", K_GROUP, socket_group),
	G("admin_group", K_GROUP, admin_group),
	G("pin_dir", K_PATH, pin_dir),
	G("cgroup", K_PATH, cgroup),
	G("detach_on_exit", K_BOOL, detach_on_exit),
	G("metrics_listen", K_LISTEN, metrics_listen),
	G("cpumap_kthread_sched", K_KSCHED, ksched),
	G("allow_unordered", K_BOOL, allow_unordered),
	G("early_drop", K_BOOL, early_drop),
	G("table_budget_iface", K_SIZE, budget_iface),
	G("table_budget_total", K_SIZE, budget_total),
	G("leaving_warn_seconds", K_SECONDS, leaving_warn_s,
	  .hi = RFSD_LEAVING_WARN_MAX),
	G("exclude", K_WORDS, exclude),
	{ NULL },
}, iface_keys[] = {
	I("cpus", K_CPUS, cpus),
	I("flow_cnt", K_POW2, flow_cnt, .lo = RFS_FLOW_CNT_MIN,
	  .hi = RFS_FLOW_CNT_MAX),
	I("mode", K_MODE, mode),
	I("noguard", K_BOOL, noguard),
	{ NULL },
};

static void __attribute__((format(printf, 3, 4)))
parse_fail(struct rfsd_parse *p, int e, const char *fmt, ...)
{
	char cause[384];
	va_list ap;

	if (p->err)
		return;
	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	snprintf(p->msg, RFSD_CONFIG_ERR_LEN, "can't parse config '%s:%d': %s",
		 p->path, p->lineno, cause);
	p->err = -e;
}

/* A pattern word: an optional '!', then default-route or a glob that
 * could match an interface name ('[' would end a section header). */
static int bad_word(const char *w, void *arg)
{
	w += *w == '!';
	return !w[0] || strlen(w) >= IF_NAMESIZE || strpbrk(w, "/:[]");
}

static int positive_word(const char *w, void *arg)
{
	return w[0] != '!';
}

static void section_start(struct rfsd_parse *p, const char *name)
{
	struct rfsd_iface_cfg *ifs, *ic;
	const char *sel;
	bool pattern;
	size_t i;

	p->ifc = NULL;
	if (!strcmp(name, "global")) {
		p->sec = SEC_GLOBAL;
		return;
	}
	p->sec = SEC_BAD;
	if (strncmp(name, "interface", 9) || (name[9] != ' ' && name[9] != '\t')) {
		parse_fail(p, EINVAL,
			   "unknown section [%s] (expected [global] or [interface NAME])",
			   name);
		return;
	}
	sel = name + 9 + strspn(name + 9, " \t");
	pattern = strpbrk(sel, " \t*?!") || !strcmp(sel, "default-route");
	if (pattern ? rfsd_for_words(sel, bad_word, NULL) ||
		      !rfsd_for_words(sel, positive_word, NULL) :
		      !rfs_ifname_valid(sel)) {
		parse_fail(p, EINVAL, "bad interface %s '%s' in [%s]",
			   pattern ? "pattern" : "name", sel, name);
		return;
	}
	for (i = 0; i < p->cfg->n_ifs; i++) {
		ic = &p->cfg->ifs[i];
		if (!strcmp(ic->match ?: ic->name, sel)) {
			parse_fail(p, EINVAL, "[interface %s] appears twice", sel);
			return;
		}
	}
	ifs = realloc(p->cfg->ifs, (p->cfg->n_ifs + 1) * sizeof(*ifs));
	if (!ifs)
		goto nomem;
	p->cfg->ifs = ifs;
	ic = &ifs[p->cfg->n_ifs];
	memset(ic, 0, sizeof(*ic));
	if (pattern && !(ic->match = strdup(sel)))
		goto nomem;
	if (!pattern)
		snprintf(ic->name, sizeof(ic->name), "%s", sel);
	p->cfg->n_ifs++;
	p->ifc = ic;
	p->sec = SEC_IFACE;
	return;
nomem:
	parse_fail(p, ENOMEM, "out of memory");
}

/* fgets() for inih, one line per call, up to the first error: one too
 * long for inih's buffer is an error, not split in two. */
static char *config_reader(char *str, int num, void *stream)
{
	struct rfsd_parse *p = stream;
	size_t n, lead;
	char *end;

	if (p->err || !fgets(str, num, p->f))
		return NULL;
	p->lineno++;
	n = strlen(str);
	if ((!n || str[n - 1] != '\n') && !feof(p->f)) {
		parse_fail(p, EINVAL, "line too long (max %d characters)",
			   num - 3);
		return NULL;
	}
	lead = 0;
	if (p->lineno == 1 && !strncmp(str, "\xef\xbb\xbf", 3))
		lead = 3;	/* a UTF-8 byte order mark */
	lead += strspn(str + lead, " \t");
	memmove(str, str + lead, n - lead + 1);
	if (str[0] == '[' && (end = strchr(str, ']'))) {
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(end - str - 1), str + 1);
		section_start(p, name);
	}
	return str;
}

#define KWAIT_HINT \
	"cpumap_kthread_sched = fifo:1 (the default) lets it preempt them (rfsd(8))"

const struct rfsd_ksched_kind_info rfsd_ksched_kinds[] = {
	[RFSD_KSCHED_KERNEL] = { "kernel", 0, 0, SCHED_OTHER,
				 "SCHED_OTHER nice", KWAIT_HINT },
	[RFSD_KSCHED_NICE] = { "nice", -20, 19, SCHED_OTHER,
			       "SCHED_OTHER nice", KWAIT_HINT },
	[RFSD_KSCHED_FIFO] = { "fifo", 1, 99, SCHED_FIFO, "SCHED_FIFO",
			       "it is SCHED_FIFO already: real-time tasks or interrupts hold that CPU" },
	[RFSD_KSCHED_BATCH] = { "batch", -20, 19, SCHED_BATCH, "SCHED_BATCH nice",
				"cpumap_kthread_sched = batch never preempts the task running there; fifo:1 (the default) does (rfsd(8))" },
};

void rfsd_ksched_name(const struct rfsd_ksched *k, char *buf, size_t len)
{
	if (k->kind == RFSD_KSCHED_KERNEL)
		snprintf(buf, len, "kernel");
	else
		snprintf(buf, len, "%s:%d", rfsd_ksched_kinds[k->kind].name,
			 k->prio);
}

static void set_ksched(struct rfsd_parse *p, const char *key, const char *v,
		       struct rfsd_ksched *out)
{
	const struct rfsd_ksched_kind_info *f;
	const char *num = strchr(v, ':');
	int e, prio, kind = RFSD_KSCHED_BATCH;
	__u32 n = 0;

	if (!strcmp(v, "kernel") || !strcmp(v, "default")) {
		*out = v[0] == 'k' ? (struct rfsd_ksched){ RFSD_KSCHED_KERNEL } :
				     RFSD_KSCHED_DEFAULT;
		return;
	}
	for (f = &rfsd_ksched_kinds[kind]; kind > RFSD_KSCHED_KERNEL;
	     f--, kind--)
		if (num && !strncmp(v, f->name, num - v) && !f->name[num - v])
			break;
	if (kind == RFSD_KSCHED_KERNEL) {
		parse_fail(p, EINVAL,
			   "%s '%s' is not default (fifo:1), kernel, nice:N (-20..19), batch:N (-20..19) or fifo:N (1..99)",
			   key, v);
		return;
	}
	/* digits with an optional '-': "fifo:-1" is a number out of range,
	 * "nice:+5" and "nice:5x" are not numbers */
	num++;
	e = rfs_parse_u32(num + (num[0] == '-'), &n);
	prio = n > 100 ? INT_MAX : num[0] == '-' ? -(int)n : (int)n;
	if (e == -EINVAL)
		parse_fail(p, EINVAL, "%s '%s': '%s' is not a number (%s:%d..%d)",
			   key, v, num, f->name, f->lo, f->hi);
	else if (e || prio < f->lo || prio > f->hi)
		parse_fail(p, ERANGE, "%s '%s' is out of range (%s:%d..%d)", key,
			   v, f->name, f->lo, f->hi);
	else
		*out = (struct rfsd_ksched){ kind, prio };
}

/* One value of k's kind into dst; a message naming the key if it is bad. */
static void set_key(struct rfsd_parse *p, const struct key *k, void *dst,
		    const char *v)
{
	struct sockaddr_storage ss;
	struct rfs_cpuset cpus;
	const char *bad = NULL;
	socklen_t len;
	__u32 n = 0;
	int e;

	switch (k->kind) {
	case K_POW2:
	case K_SECONDS:
		e = rfs_parse_u32(v, &n);
		if (!e && k->kind == K_POW2)
			e = rfs_check_pow2(n, k->lo, k->hi);
		else if (!e && n > k->hi)
			e = -ERANGE;
		if (!e)
			*(__u32 *)dst = n;
		else if (e == -EINVAL)
			parse_fail(p, EINVAL, "%s '%s' is not a number", k->name, v);
		else if (e == -EDOM)
			parse_fail(p, EINVAL, "%s '%s' is not a power of two (%u..%u)",
				   k->name, v, k->lo, k->hi);
		else
			parse_fail(p, ERANGE, "%s '%s' is out of range (%u..%u)",
				   k->name, v, k->lo, k->hi);
		return;
	case K_SIZE:
		/* at least 1 MiB: less is under one default table, a typo */
		e = rfs_parse_size(v, 1ull << 20, 1ull << 40, dst);
		if (e == -EINVAL)
			parse_fail(p, EINVAL,
				   "%s '%s' is not a size (a number of bytes, or with K, M or G)",
				   k->name, v);
		else if (e)
			parse_fail(p, ERANGE, "%s '%s' is out of range (1M..1024G)",
				   k->name, v);
		return;
	case K_BOOL:
		if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
			*(bool *)dst = true;
		else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
			*(bool *)dst = false;
		else
			parse_fail(p, EINVAL, "%s '%s' is not yes or no", k->name, v);
		return;
	case K_MODE:
		if (rfs_xdp_mode_parse(v, dst))
			parse_fail(p, EINVAL,
				   "%s '%s' is not auto, native or generic", k->name, v);
		return;
	case K_KSCHED:
		set_ksched(p, k->name, v, dst);
		return;
	case K_PATH:
		bad = v[0] != '/' ? "is not an absolute path" : NULL;
		break;
	case K_GROUP:
		/* looked up when used: a group made later counts at SIGHUP */
		bad = rfs_group_name_valid(v) ? NULL :
		      "is not a group name ([a-z_][a-z0-9_-]*, at most 32 characters)";
		break;
	case K_LISTEN:
		/* checked here, so a typo is a config error at its line */
		bad = !rfs_parse_hostport(v, &ss, &len) ? NULL :
		      "is not IPV4:PORT or [IPV6]:PORT (numeric, port 1..65535)";
		break;
	case K_WORDS:
		bad = v[0] && !rfsd_for_words(v, bad_word, NULL) ? NULL :
		      "is not interface name patterns";
		break;
	case K_CPUS:
		e = rfsd_cpus_resolve(v, NULL, &cpus);
		if (e == -ERANGE)
			parse_fail(p, ERANGE, "%s '%s': CPUs go up to %d",
				   k->name, v, RFS_MAX_CPUS - 1);
		else if (e == -ENOENT)
			parse_fail(p, EINVAL, "%s '%s' leaves no CPU", k->name, v);
		else if (e)
			bad = "is not a CPU list (like 0-3,6, all, isolated or housekeeping, each word with an optional '!')";
		if (e && !bad)
			return;
		break;
	}
	/* a string kind: keep a copy if valid */
	if (bad)
		parse_fail(p, EINVAL, "%s '%s' %s", k->name, v, bad);
	else if (!(*(char **)dst = strdup(v)))
		parse_fail(p, ENOMEM, "out of memory");
}

static void table_key(struct rfsd_parse *p, const struct key *t, void *base,
		      unsigned int *set, const char *key, const char *v,
		      const char *where)
{
	char list[512] = "";
	size_t i, off = 0;

	for (i = 0; t[i].name && strcmp(t[i].name, key); i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s",
				i ? ", " : "", t[i].name);
	if (!t[i].name) {
		parse_fail(p, EINVAL, "unknown key '%s' in %s (%s)", key, where,
			   list);
	} else if (*set & 1u << i) {
		parse_fail(p, EINVAL, "'%s' set twice", key);
	} else {
		*set |= 1u << i;
		set_key(p, &t[i], (char *)base + t[i].off, v);
	}
}

static int config_handler(void *user, const char *section, const char *name,
			  const char *value)
{
	struct rfsd_parse *p = user;
	char label[300];

	if (!name || !value)	/* a section start, if inih reports them */
		return 1;
	if (p->sec == SEC_NONE)
		parse_fail(p, EINVAL, "key '%s' outside a section", name);
	else if (p->sec == SEC_GLOBAL)
		table_key(p, global_keys, p->cfg, &p->cfg->set, name, value,
			  "[global]");
	else if (p->sec == SEC_IFACE)
		table_key(p, iface_keys, p->ifc, &p->ifc->set, name, value,
			  rfsd_iface_cfg_label(p->ifc, label, sizeof(label)));
	/* keep going: inih then stops only at syntax errors we report */
	return 1;
}

int rfsd_config_load(const char *path, bool must_exist, bool unsafe_noguard,
		     struct rfsd_config *cfg, char *err)
{
	FILE *f = fopen(path, "re");
	char label[300];
	size_t i;
	int ret;

	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return rfsd_config_parse(NULL, path, cfg, err);
		memset(cfg, 0, sizeof(*cfg));
		snprintf(err, RFSD_CONFIG_ERR_LEN, "can't open config '%s': %s",
			 path, strerror(-ret));
		return ret;
	}
	ret = rfsd_config_parse(f, path, cfg, err);
	for (i = 0; !ret && !unsafe_noguard && i < cfg->n_ifs; i++) {
		if (!cfg->ifs[i].noguard)
			continue;
		snprintf(err, RFSD_CONFIG_ERR_LEN,
			 "can't honour 'noguard = yes' in %s of '%s': it turns off the in-order rule and lets flows be reordered, so rfsd refuses it unless started with --unsafe-noguard (benchmarks only)",
			 rfsd_iface_cfg_label(&cfg->ifs[i], label,
					      sizeof(label)), path);
		ret = -EPERM;
	}
	fclose(f);
	if (ret)
		rfsd_config_free(cfg);
	return ret;
}

int rfsd_config_parse(FILE *f, const char *path, struct rfsd_config *cfg,
		      char *err)
{
	struct rfsd_parse p = {
		.f = f, .path = path, .cfg = cfg, .sec = SEC_NONE, .msg = err,
	};
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->ksched = RFSD_KSCHED_DEFAULT;
	cfg->leaving_warn_s = RFSD_LEAVING_WARN_DEFAULT;
	cfg->early_drop = true;
	err[0] = '\0';
	if (!f)
		return 0;
	ret = ini_parse_stream(config_reader, &p, config_handler, &p);
	if (ferror(p.f) && !p.err) {
		snprintf(err, RFSD_CONFIG_ERR_LEN, "can't read config '%s': %s",
			 path, strerror(errno ? errno : EIO));
		p.err = -EIO;
	}
	if (!p.err && ret > 0) {
		p.lineno = ret;
		parse_fail(&p, EINVAL,
			   "syntax error (expected [section], key = value or a comment)");
	} else if (!p.err && ret < 0) {
		snprintf(err, RFSD_CONFIG_ERR_LEN, "can't parse config '%s': %s",
			 path, strerror(ENOMEM));
		p.err = -ENOMEM;
	}
	if (p.err)
		rfsd_config_free(cfg);
	return p.err;
}

/* The strings t's keys hold in base. */
static void free_keys(const struct key *t, void *base)
{
	for (; t->name; t++)
		if (t->kind >= K_STRING)
			free(*(char **)((char *)base + t->off));
}

void rfsd_config_free(struct rfsd_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->n_ifs; i++) {
		free(cfg->ifs[i].match);
		free_keys(iface_keys, &cfg->ifs[i]);
	}
	free_keys(global_keys, cfg);
	free(cfg->ifs);
	memset(cfg, 0, sizeof(*cfg));
}
