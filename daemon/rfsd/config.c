// SPDX-License-Identifier: GPL-2.0
/*
 * rfsd.conf parsing with inih.  inih tells its handler neither the line
 * number nor that a section started, and it takes an indented line as the
 * continuation of the previous value; so the file goes through our own
 * reader, which counts lines, strips leading blanks (no continuations:
 * every value is one line) and sees each [section] header as it passes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "config.h"
#include "parse.h"

enum {
	RFSD_SET_SOCK_FLOW	= 1 << 0,
	RFSD_SET_SOCKET		= 1 << 1,
	RFSD_SET_PIN_DIR	= 1 << 2,
	RFSD_SET_CGROUP		= 1 << 3,
	RFSD_SET_CPUS		= 1 << 4,
	RFSD_SET_FLOW_CNT	= 1 << 5,
	RFSD_SET_MODE		= 1 << 6,
	RFSD_SET_DETACH		= 1 << 7,
	RFSD_SET_METRICS	= 1 << 8,
	RFSD_SET_NOGUARD	= 1 << 9,
	RFSD_SET_KSCHED		= 1 << 10,
	RFSD_SET_UNORDERED	= 1 << 11,
	RFSD_SET_SOCK_GROUP	= 1 << 12,
	RFSD_SET_ADMIN_GROUP	= 1 << 13,
	RFSD_SET_BUDGET_IF	= 1 << 14,
	RFSD_SET_BUDGET_TOTAL	= 1 << 15,
	RFSD_SET_LEAVING_WARN	= 1 << 16,
};

enum rfsd_section { SEC_NONE, SEC_GLOBAL, SEC_IFACE, SEC_BAD };

struct rfsd_parse {
	FILE *f;
	const char *path;
	struct rfsd_config *cfg;
	int lineno;		/* of the line inih is working on */
	bool line_done;		/* the last chunk ended its line */
	enum rfsd_section sec;
	struct rfsd_iface_cfg *ifc;	/* in [interface NAME] */
	int err;		/* first error */
	char *msg;
};

static void parse_fail(struct rfsd_parse *p, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void parse_fail(struct rfsd_parse *p, int e, const char *fmt, ...)
{
	char cause[256];
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

const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_ifs; i++)
		if (!strcmp(cfg->ifs[i].name, name))
			return &cfg->ifs[i];
	return NULL;
}

static void section_start(struct rfsd_parse *p, const char *name)
{
	struct rfsd_iface_cfg *ifs;
	const char *ifname;
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
	ifname = name + 9;
	ifname += strspn(ifname, " \t");
	if (!rfs_ifname_valid(ifname)) {
		parse_fail(p, EINVAL, "bad interface name '%s' in [%s]", ifname,
			   name);
		return;
	}
	p->sec = SEC_IFACE;
	for (i = 0; i < p->cfg->n_ifs; i++) {
		if (!strcmp(p->cfg->ifs[i].name, ifname)) {
			parse_fail(p, EINVAL, "[interface %s] appears twice",
				   ifname);
			p->sec = SEC_BAD;
			return;
		}
	}
	ifs = realloc(p->cfg->ifs, (p->cfg->n_ifs + 1) * sizeof(*ifs));
	if (!ifs) {
		parse_fail(p, ENOMEM, "out of memory");
		p->sec = SEC_BAD;
		return;
	}
	p->cfg->ifs = ifs;
	p->ifc = &ifs[p->cfg->n_ifs++];
	memset(p->ifc, 0, sizeof(*p->ifc));
	snprintf(p->ifc->name, sizeof(p->ifc->name), "%s", ifname);
}

/*
 * fgets() for inih, one physical line per call.  Lines too long for inih's
 * buffer are an error here rather than silently split in two.
 */
static char *config_reader(char *str, int num, void *stream)
{
	struct rfsd_parse *p = stream;
	size_t n, lead;
	char *end;

	if (!fgets(str, num, p->f))
		return NULL;
	if (p->line_done)
		p->lineno++;
	n = strlen(str);
	p->line_done = n && str[n - 1] == '\n';
	if (!p->line_done && !feof(p->f)) {
		int c;

		parse_fail(p, EINVAL, "line too long (max %d characters)",
			   num - 3);
		while ((c = fgetc(p->f)) != EOF && c != '\n')
			;
		p->line_done = true;
		snprintf(str, num, ";\n");
		return str;
	}
	lead = 0;
	if (p->lineno == 1 && !strncmp(str, "\xef\xbb\xbf", 3))
		lead = 3;	/* a UTF-8 byte order mark */
	lead += strspn(str + lead, " \t");
	memmove(str, str + lead, n - lead + 1);
	if (str[0] == '[') {
		end = strchr(str, ']');
		if (end) {
			char name[256];

			snprintf(name, sizeof(name), "%.*s", (int)(end - str - 1),
				 str + 1);
			section_start(p, name);
		}
	}
	return str;
}

/* A table size: a number first, then a power of two in lo..hi. */
static void set_pow2(struct rfsd_parse *p, const char *key, const char *v,
		     __u32 lo, __u32 hi, __u32 *out)
{
	__u32 n = 0;
	int e;

	e = rfs_parse_u32(v, &n);
	if (!e)
		e = rfs_check_pow2(n, lo, hi);
	if (!e)
		*out = n;
	else if (e == -EINVAL)
		parse_fail(p, EINVAL, "%s '%s' is not a number", key, v);
	else if (e == -EDOM)
		parse_fail(p, EINVAL, "%s '%s' is not a power of two (%u..%u)",
			   key, v, lo, hi);
	else
		parse_fail(p, ERANGE, "%s '%s' is out of range (%u..%u)", key,
			   v, lo, hi);
}

static bool once(struct rfsd_parse *p, unsigned int *set, unsigned int bit,
		 const char *key)
{
	if (*set & bit) {
		parse_fail(p, EINVAL, "'%s' set twice", key);
		return false;
	}
	*set |= bit;
	return true;
}

static char *set_path(struct rfsd_parse *p, const char *key, const char *v)
{
	char *s;

	if (v[0] != '/') {
		parse_fail(p, EINVAL, "%s '%s' is not an absolute path", key, v);
		return NULL;
	}
	s = strdup(v);
	if (!s)
		parse_fail(p, ENOMEM, "out of memory");
	return s;
}

/* A group name (parse.h); looked up when rfsd uses it, so a group made
 * later counts from the next SIGHUP. */
static char *set_group(struct rfsd_parse *p, const char *key, const char *v)
{
	char *s;

	if (!rfs_group_name_valid(v)) {
		parse_fail(p, EINVAL,
			   "%s '%s' is not a group name ([a-z_][a-z0-9_-]*, at most 32 characters)",
			   key, v);
		return NULL;
	}
	s = strdup(v);
	if (!s)
		parse_fail(p, ENOMEM, "out of memory");
	return s;
}

/* A budget: at least 1 MiB (less is under one default table: a typo). */
static void set_size(struct rfsd_parse *p, const char *key, const char *v,
		     __u64 *out)
{
	int e = rfs_parse_size(v, 1ull << 20, 1ull << 40, out);

	if (e == -EINVAL)
		parse_fail(p, EINVAL,
			   "%s '%s' is not a size (a number of bytes, or with K, M or G)",
			   key, v);
	else if (e)
		parse_fail(p, ERANGE, "%s '%s' is out of range (1M..1024G)",
			   key, v);
}

/* yes/true/1 or no/false/0 */
static void set_bool(struct rfsd_parse *p, const char *key, const char *v,
		     bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		parse_fail(p, EINVAL, "%s '%s' is not yes or no", key, v);
}

/* The forms of cpumap_kthread_sched with a number: "<name>:N", N in
 * lo..hi.  Parsing and the error messages both read this table. */
static const struct ksched_form {
	const char *name;
	enum rfsd_ksched_kind kind;
	int lo, hi;
} ksched_forms[] = {
	{ "nice", RFSD_KSCHED_NICE, RFSD_KSCHED_NICE_MIN, RFSD_KSCHED_NICE_MAX },
	{ "batch", RFSD_KSCHED_BATCH, RFSD_KSCHED_NICE_MIN, RFSD_KSCHED_NICE_MAX },
	{ "fifo", RFSD_KSCHED_FIFO, RFSD_KSCHED_FIFO_MIN, RFSD_KSCHED_FIFO_MAX },
};

/* The form v is written in ("fifo:..."), or NULL */
static const struct ksched_form *ksched_form_of(const char *v)
{
	size_t i, n;

	for (i = 0; i < sizeof(ksched_forms) / sizeof(ksched_forms[0]); i++) {
		n = strlen(ksched_forms[i].name);
		if (!strncmp(v, ksched_forms[i].name, n) && v[n] == ':')
			return &ksched_forms[i];
	}
	return NULL;
}

int rfsd_ksched_parse(const char *v, struct rfsd_ksched *out)
{
	const struct ksched_form *f = ksched_form_of(v);
	struct rfsd_ksched k = { .kind = RFSD_KSCHED_KERNEL };
	const char *num;
	bool neg = false;
	__u32 n = 0;
	int e, lo, hi;

	if (!strcmp(v, "kernel")) {
		*out = k;
		return 0;
	}
	if (!strcmp(v, "default")) {
		*out = RFSD_KSCHED_DEFAULT;
		return 0;
	}
	if (!f)
		return -EINVAL;
	k.kind = f->kind;
	lo = f->lo;
	hi = f->hi;
	/* a number is digits with an optional '-': "fifo:-1" is a number
	 * out of range, "nice:+5" and "nice:5x" are not numbers */
	num = strchr(v, ':') + 1;
	neg = num[0] == '-';
	e = rfs_parse_u32(num + neg, &n);
	if (e == -ERANGE)
		return -ERANGE;		/* digits, just too many */
	if (e)
		return e;
	/* n may be up to UINT32_MAX: compare before making it an int */
	if (neg ? (lo >= 0 ? n != 0 : n > (__u32)-lo) : n > (__u32)hi)
		return -ERANGE;
	k.prio = neg ? -(int)n : (int)n;
	if (k.prio < lo)
		return -ERANGE;
	*out = k;
	return 0;
}

void rfsd_ksched_name(const struct rfsd_ksched *k, char *buf, size_t len)
{
	switch (k->kind) {
	case RFSD_KSCHED_NICE:
		snprintf(buf, len, "nice:%d", k->prio);
		break;
	case RFSD_KSCHED_FIFO:
		snprintf(buf, len, "fifo:%d", k->prio);
		break;
	case RFSD_KSCHED_BATCH:
		snprintf(buf, len, "batch:%d", k->prio);
		break;
	default:
		snprintf(buf, len, "kernel");
		break;
	}
}

static void set_ksched(struct rfsd_parse *p, const char *key, const char *v)
{
	const struct ksched_form *f = ksched_form_of(v);
	int e = rfsd_ksched_parse(v, &p->cfg->ksched);

	if (e && f) {
		char range[32];

		snprintf(range, sizeof(range), "%s:%d..%d", f->name, f->lo,
			 f->hi);
		if (e == -ERANGE)
			parse_fail(p, ERANGE, "%s '%s' is out of range (%s)",
				   key, v, range);
		else
			parse_fail(p, EINVAL,
				   "%s '%s': '%s' is not a number (%s)", key,
				   v, strchr(v, ':') + 1, range);
	} else if (e) {
		parse_fail(p, EINVAL,
			   "%s '%s' is not default (fifo:1), kernel, nice:N (-20..19), batch:N (-20..19) or fifo:N (1..99)",
			   key, v);
	}
}

static void set_seconds(struct rfsd_parse *p, const char *key, const char *v,
			__u32 hi, __u32 *out)
{
	__u32 n = 0;
	int e = rfs_parse_u32(v, &n);

	if (e && e != -ERANGE)
		parse_fail(p, EINVAL, "%s '%s' is not a number", key, v);
	else if (e || n > hi)
		parse_fail(p, ERANGE, "%s '%s' is out of range (0..%u)", key,
			   v, hi);
	else
		*out = n;
}

static void global_key(struct rfsd_parse *p, const char *key, const char *v)
{
	struct rfsd_config *c = p->cfg;

	if (!strcmp(key, "sock_flow_entries")) {
		if (once(p, &c->set, RFSD_SET_SOCK_FLOW, key))
			set_pow2(p, key, v, RFS_SOCK_FLOW_MIN,
				 RFS_SOCK_FLOW_MAX, &c->sock_flow_entries);
	} else if (!strcmp(key, "socket")) {
		if (once(p, &c->set, RFSD_SET_SOCKET, key))
			c->socket = set_path(p, key, v);
	} else if (!strcmp(key, "pin_dir")) {
		if (once(p, &c->set, RFSD_SET_PIN_DIR, key))
			c->pin_dir = set_path(p, key, v);
	} else if (!strcmp(key, "cgroup")) {
		if (once(p, &c->set, RFSD_SET_CGROUP, key))
			c->cgroup = set_path(p, key, v);
	} else if (!strcmp(key, "detach_on_exit")) {
		if (once(p, &c->set, RFSD_SET_DETACH, key))
			set_bool(p, key, v, &c->detach_on_exit);
	} else if (!strcmp(key, "metrics_listen")) {
		struct sockaddr_storage ss;
		socklen_t len;

		if (!once(p, &c->set, RFSD_SET_METRICS, key))
			return;
		/* checked here, so a typo is a config error at its line */
		if (rfs_parse_hostport(v, &ss, &len)) {
			parse_fail(p, EINVAL,
				   "%s '%s' is not IPV4:PORT or [IPV6]:PORT (numeric, port 1..65535)",
				   key, v);
			return;
		}
		c->metrics_listen = strdup(v);
		if (!c->metrics_listen)
			parse_fail(p, ENOMEM, "out of memory");
	} else if (!strcmp(key, "cpumap_kthread_sched")) {
		if (once(p, &c->set, RFSD_SET_KSCHED, key))
			set_ksched(p, key, v);
	} else if (!strcmp(key, "allow_unordered")) {
		if (once(p, &c->set, RFSD_SET_UNORDERED, key))
			set_bool(p, key, v, &c->allow_unordered);
	} else if (!strcmp(key, "socket_group")) {
		if (once(p, &c->set, RFSD_SET_SOCK_GROUP, key))
			c->socket_group = set_group(p, key, v);
	} else if (!strcmp(key, "admin_group")) {
		if (once(p, &c->set, RFSD_SET_ADMIN_GROUP, key))
			c->admin_group = set_group(p, key, v);
	} else if (!strcmp(key, "table_budget_iface")) {
		if (once(p, &c->set, RFSD_SET_BUDGET_IF, key))
			set_size(p, key, v, &c->budget_iface);
	} else if (!strcmp(key, "table_budget_total")) {
		if (once(p, &c->set, RFSD_SET_BUDGET_TOTAL, key))
			set_size(p, key, v, &c->budget_total);
	} else if (!strcmp(key, "leaving_warn_seconds")) {
		if (once(p, &c->set, RFSD_SET_LEAVING_WARN, key))
			set_seconds(p, key, v, RFSD_LEAVING_WARN_MAX,
				    &c->leaving_warn_s);
	} else {
		parse_fail(p, EINVAL,
			   "unknown key '%s' in [global] (sock_flow_entries, socket, socket_group, admin_group, pin_dir, cgroup, detach_on_exit, metrics_listen, cpumap_kthread_sched, allow_unordered, table_budget_iface, table_budget_total, leaving_warn_seconds)",
			   key);
	}
}

__u32 rfsd_config_leaving_warn_s(const struct rfsd_config *cfg)
{
	return cfg->set & RFSD_SET_LEAVING_WARN ? cfg->leaving_warn_s :
	       RFSD_LEAVING_WARN_DEFAULT;
}

static void iface_key(struct rfsd_parse *p, const char *key, const char *v)
{
	struct rfsd_iface_cfg *ifc = p->ifc;
	int e;

	if (!strcmp(key, "cpus")) {
		if (!once(p, &ifc->set, RFSD_SET_CPUS, key))
			return;
		e = rfs_cpulist_parse(v, &ifc->cpus);
		if (e == -ERANGE)
			parse_fail(p, ERANGE, "cpus '%s': CPUs go up to %d", v,
				   RFS_MAX_CPUS - 1);
		else if (e)
			parse_fail(p, EINVAL,
				   "cpus '%s' is not a CPU list (like 0-3,6)", v);
	} else if (!strcmp(key, "flow_cnt")) {
		if (once(p, &ifc->set, RFSD_SET_FLOW_CNT, key))
			set_pow2(p, key, v, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX,
				 &ifc->flow_cnt);
	} else if (!strcmp(key, "mode")) {
		if (!once(p, &ifc->set, RFSD_SET_MODE, key))
			return;
		if (rfs_xdp_mode_parse(v, &ifc->mode))
			parse_fail(p, EINVAL,
				   "mode '%s' is not auto, native or generic", v);
	} else if (!strcmp(key, "noguard")) {
		if (once(p, &ifc->set, RFSD_SET_NOGUARD, key))
			set_bool(p, key, v, &ifc->noguard);
	} else {
		parse_fail(p, EINVAL,
			   "unknown key '%s' in [interface %s] (cpus, flow_cnt, mode, noguard)",
			   key, ifc->name);
	}
}

static int config_handler(void *user, const char *section, const char *name,
			  const char *value)
{
	struct rfsd_parse *p = user;

	if (!name || !value)	/* a section start, if inih reports them */
		return 1;
	switch (p->sec) {
	case SEC_NONE:
		parse_fail(p, EINVAL, "key '%s' outside a section", name);
		break;
	case SEC_GLOBAL:
		global_key(p, name, value);
		break;
	case SEC_IFACE:
		iface_key(p, name, value);
		break;
	case SEC_BAD:		/* already reported at the header */
		break;
	}
	/* keep going: inih then stops only at syntax errors we report */
	return 1;
}

/* What a config without the key says: zero, but for the kthread policy */
static void config_defaults(struct rfsd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ksched = RFSD_KSCHED_DEFAULT;
}

int rfsd_config_load(const char *path, bool must_exist,
		     struct rfsd_config *cfg, char *err)
{
	FILE *f;
	int ret;

	config_defaults(cfg);
	err[0] = '\0';
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return 0;
		snprintf(err, RFSD_CONFIG_ERR_LEN, "can't open config '%s': %s",
			 path, strerror(-ret));
		return ret;
	}
	ret = rfsd_config_parse(f, path, cfg, err);
	fclose(f);
	return ret;
}

int rfsd_config_parse(FILE *f, const char *path, struct rfsd_config *cfg,
		      char *err)
{
	struct rfsd_parse p = {
		.f = f, .path = path, .cfg = cfg, .lineno = 0,
		.line_done = true, .sec = SEC_NONE, .msg = err,
	};
	int ret;

	config_defaults(cfg);
	err[0] = '\0';
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

int rfsd_config_check_noguard(const struct rfsd_config *cfg, const char *path,
			      bool unsafe_noguard, char *err)
{
	size_t i;

	err[0] = '\0';
	if (unsafe_noguard)
		return 0;
	for (i = 0; i < cfg->n_ifs; i++)
		if (cfg->ifs[i].noguard) {
			snprintf(err, RFSD_CONFIG_ERR_LEN,
				 "can't honour 'noguard = yes' in [interface %s] of '%s': it turns off the in-order rule and lets flows be reordered, so rfsd refuses it unless started with --unsafe-noguard (benchmarks only)",
				 cfg->ifs[i].name, path);
			return -EPERM;
		}
	return 0;
}

void rfsd_config_free(struct rfsd_config *cfg)
{
	free(cfg->socket);
	free(cfg->pin_dir);
	free(cfg->cgroup);
	free(cfg->metrics_listen);
	free(cfg->socket_group);
	free(cfg->admin_group);
	free(cfg->ifs);
	memset(cfg, 0, sizeof(*cfg));
}
