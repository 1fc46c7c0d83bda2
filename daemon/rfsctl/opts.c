// SPDX-License-Identifier: GPL-2.0
/*
 * Option tables: parse the words after a command into its cfg.  Each type
 * is checked here, once, so a do_<cmd> gets values it can send as they are:
 * a bad number or CPU list is a usage error (exit 2) before rfsd is asked.
 * Range checks (powers of two, online CPUs) stay rfsd's job.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "parse.h"
#include "rfsctl.h"

const struct rfs_cmd *rfs_cmd_select(const struct rfs_cmd *cmds,
				     const char *name, bool *ambiguous)
{
	const struct rfs_cmd *cmd, *found = NULL;
	size_t len = strlen(name);
	int n = 0;

	*ambiguous = false;
	if (!len)
		return NULL;
	for (cmd = cmds; cmd->name; cmd++) {
		if (!strcmp(cmd->name, name))
			return cmd;
		if (!strncmp(cmd->name, name, len)) {
			found = cmd;
			n++;
		}
	}
	*ambiguous = n > 1;
	return n == 1 ? found : NULL;
}

int rfs_parse_uint(const char *s, unsigned int *val)
{
	__u32 v;
	int err = rfs_parse_u32(s, &v);

	if (err)
		return err;
	if (!v)
		return -EDOM;
	if (v > INT_MAX)
		return -ERANGE;
	*val = v;
	return 0;
}

/* An option found in one of the tables, and the cfg it writes to. */
struct opt_ref {
	const struct rfs_opt *opt;
	void *cfg;
};

static bool takes_arg(const struct rfs_opt *opt)
{
	return opt->type != OPT_BOOL;
}

/* How the option is named in messages: "--flow-cnt" or its metavar. */
static void opt_label(const struct rfs_opt *opt, char *buf, size_t len)
{
	if (opt->positional)
		snprintf(buf, len, "%s", opt->metavar);
	else
		snprintf(buf, len, "--%s", opt->name);
}

static int set_enum(const struct rfs_opt *opt, const char *arg,
		    const char **out)
{
	const char *const *v, *found = NULL;
	size_t len = strlen(arg);
	int n = 0;

	for (v = opt->values; *v; v++) {
		if (!strcmp(*v, arg)) {
			*out = *v;
			return 0;
		}
		if (len && !strncmp(*v, arg, len)) {
			found = *v;
			n++;
		}
	}
	if (n != 1)
		return -EINVAL;
	*out = found;
	return 0;
}

static void enum_list(const struct rfs_opt *opt, char *buf, size_t len)
{
	const char *const *v;
	size_t off = 0;

	buf[0] = '\0';
	for (v = opt->values; *v && off < len; v++)
		off += snprintf(buf + off, len - off, "%s%s",
				v == opt->values ? "" : v[1] ? ", " : " or ",
				*v);
}

static int set_value(const struct opt_ref *r, const char *arg,
		     const char *path)
{
	const struct rfs_opt *opt = r->opt;
	void *p = (char *)r->cfg + opt->offset;
	struct rfs_opt_cpus *cpus;
	char what[64], list[128];
	int err;

	opt_label(opt, what, sizeof(what));
	switch (opt->type) {
	case OPT_BOOL:
		*(bool *)p = true;
		return 0;
	case OPT_STRING:
		*(const char **)p = arg;
		return 0;
	case OPT_IFNAME:
		if (strlen(arg) >= IFNAMSIZ)
			return p_usage(path, "%s '%s' is too long for an interface name (max %d characters)",
				       what, arg, IFNAMSIZ - 1);
		if (!rfs_ifname_valid(arg))
			return p_usage(path, "%s '%s' is not a valid interface name",
				       what, arg);
		*(const char **)p = arg;
		return 0;
	case OPT_UINT:
		err = rfs_parse_uint(arg, (unsigned int *)p);
		if (err == -ERANGE)
			return p_usage(path, "%s '%s' is too large (max %d)",
				       what, arg, INT_MAX);
		if (err == -EDOM)
			return p_usage(path, "%s '%s' is not a positive integer",
				       what, arg);
		if (err)
			return p_usage(path, "%s '%s' is not a number",
				       what, arg);
		return 0;
	case OPT_CPULIST:
		cpus = p;
		err = rfs_cpulist_parse(arg, &cpus->cpus);
		if (err == -ERANGE)
			return p_usage(path, "%s '%s' has a CPU above %d",
				       what, arg, RFS_MAX_CPUS - 1);
		if (err)
			return p_usage(path, "%s '%s' is not a CPU list such as 0-3,6",
				       what, arg);
		cpus->given = true;
		return 0;
	case OPT_ENUM:
		if (set_enum(opt, arg, (const char **)p)) {
			enum_list(opt, list, sizeof(list));
			return p_usage(path, "%s '%s' is not one of %s",
				       what, arg, list);
		}
		return 0;
	}
	return p_usage(path, "%s: unknown option type", what);
}

/* May this option be used here?  Command options always; global ones
 * after a command unless they are leading-only. */
static bool opt_usable(const struct rfs_opt *opt, bool global, bool leading)
{
	if (opt->positional)
		return false;
	return !global || leading || !opt->leading;
}

/*
 * Look a long option up: an exact name, else a unique prefix, among the
 * command's options then the global ones.  0, or a usage error.
 */
static int find_long(const struct rfs_opt_globals *gl,
		     const struct rfs_opt *opts, void *cfg, bool leading,
		     const char *name, size_t nlen, const char *word,
		     const char *path, struct opt_ref *out)
{
	const struct rfs_opt *tables[2] = { opts, gl->opts };
	void *cfgs[2] = { cfg, gl->cfg };
	const struct rfs_opt *o;
	char cands[256];
	size_t off = 0;
	int t, n = 0;

	cands[0] = '\0';
	for (t = 0; t < 2; t++) {
		for (o = tables[t]; o && o->name; o++) {
			if (!opt_usable(o, t == 1, leading))
				continue;
			if (strlen(o->name) == nlen &&
			    !strncmp(o->name, name, nlen)) {
				*out = (struct opt_ref){ o, cfgs[t] };
				return 0;
			}
			if (strncmp(o->name, name, nlen))
				continue;
			if (!n++)
				*out = (struct opt_ref){ o, cfgs[t] };
			if (off < sizeof(cands))
				off += snprintf(cands + off, sizeof(cands) - off,
						"%s--%s", off ? ", " : "",
						o->name);
		}
	}
	if (n == 1)
		return 0;
	if (n > 1)
		return p_usage(path, "option '%s' is ambiguous (%s)", word,
			       cands);
	return p_usage(path, "option '%s' is unknown", word);
}

static int find_short(const struct rfs_opt_globals *gl,
		      const struct rfs_opt *opts, void *cfg, bool leading,
		      char c, const char *path, struct opt_ref *out)
{
	const struct rfs_opt *tables[2] = { opts, gl->opts };
	void *cfgs[2] = { cfg, gl->cfg };
	const struct rfs_opt *o;
	int t;

	for (t = 0; t < 2; t++) {
		for (o = tables[t]; o && o->name; o++) {
			if (o->short_opt != c || !opt_usable(o, t == 1, leading))
				continue;
			*out = (struct opt_ref){ o, cfgs[t] };
			return 0;
		}
	}
	return p_usage(path, "option '-%c' is unknown", c);
}

static const struct rfs_opt *next_positional(const struct rfs_opt *opts,
					     int idx)
{
	const struct rfs_opt *o;

	for (o = opts; o && o->name; o++)
		if (o->positional && !idx--)
			return o;
	return NULL;
}

/* In rfs_opts_parse, which returns -1 once the error is reported. */
#define usage_err(...)	(p_usage(__VA_ARGS__), -1)

static bool looks_negative(const char *s)
{
	return s[0] == '-' && s[1] >= '0' && s[1] <= '9';
}

int rfs_opts_parse(const struct rfs_opt_globals *gl,
		   const struct rfs_opt *opts, void *cfg, int argc,
		   char **argv, const char *path, bool stop)
{
	/* before the command (opts NULL, stop), leading options are fine */
	bool leading = stop && !path;
	const struct rfs_opt *pos;
	bool dashdash = false;
	struct opt_ref r = { NULL, NULL };
	const char *w, *eq, *arg;
	int i, npos = 0;
	char what[64];

	for (i = 0; i < argc; i++) {
		w = argv[i];
		pos = next_positional(opts, npos);
		if (dashdash || w[0] != '-' || !w[1] ||
		    (pos && looks_negative(w))) {
			if (stop)
				return i;
			if (!pos)
				return usage_err(path, "unexpected argument '%s'", w);
			r = (struct opt_ref){ pos, cfg };
			if (set_value(&r, w, path))
				return -1;
			npos++;
			continue;
		}
		if (!strcmp(w, "--")) {
			dashdash = true;
			continue;
		}
		if (w[1] == '-') {
			eq = strchr(w + 2, '=');
			if (find_long(gl, opts, cfg, leading, w + 2,
				      eq ? (size_t)(eq - w - 2) : strlen(w + 2),
				      w, path, &r))
				return -1;
			arg = eq ? eq + 1 : NULL;
			if (!takes_arg(r.opt) && arg)
				return usage_err(path, "option '--%s' takes no argument",
						 r.opt->name);
		} else {
			/* a bundle of flags (-jv), or -x ARG / -xARG */
			for (w++; *w; w++) {
				if (find_short(gl, opts, cfg, leading, *w,
					       path, &r))
					return -1;
				if (takes_arg(r.opt))
					break;
				if (set_value(&r, NULL, path))
					return -1;
			}
			if (!*w)
				continue;
			arg = w[1] ? w + 1 : NULL;
		}
		if (takes_arg(r.opt) && !arg) {
			if (i + 1 >= argc) {
				opt_label(r.opt, what, sizeof(what));
				return usage_err(path, "option '%s' needs an argument %s",
						 what, r.opt->metavar);
			}
			arg = argv[++i];
		}
		if (set_value(&r, arg, path))
			return -1;
	}
	if (gl->cfg->help)
		return argc;
	pos = next_positional(opts, npos);
	if (pos && !pos->optional)
		return usage_err(path, "missing %s", pos->metavar);
	return argc;
}
