// SPDX-License-Identifier: GPL-2.0
/*
 * Option tables: parse the words after a command into its cfg, and make
 * the help text from them, so that it cannot drift from what the parser
 * takes (man/rfsctl.8 repeats it word for word; test_rfsctl_usage.sh
 * checks).  Each type is checked here, once: a bad number or CPU list is
 * a usage error (exit 2) before rfsd is asked.  Range checks (powers of
 * two, online CPUs) stay rfsd's job.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "parse.h"
#include "rfsctl.h"

/* An option found in one of the tables, and the cfg it writes to. */
struct opt_ref {
	const struct rfs_opt *opt;
	void *cfg;
};

/* The value of opt arg is, or the one value it is a prefix of; or NULL. */
static const char *enum_value(const struct rfs_opt *opt, const char *arg)
{
	const char *const *v, *found = NULL;
	int n = 0;

	for (v = opt->values; *v; v++) {
		if (!strcmp(*v, arg))
			return *v;
		if (*arg && !strncmp(*v, arg, strlen(arg)) && !n++)
			found = *v;
	}
	return n == 1 ? found : NULL;
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
	__u32 u;
	int err;

	/* how messages name it: "--flow-cnt" or its metavar */
	snprintf(what, sizeof(what), "%s%s", opt->positional ? "" : "--",
		 opt->positional ? opt->metavar : opt->name);
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
		err = rfs_parse_u32(arg, &u);
		if (err == -ERANGE || (!err && u > INT_MAX))
			return p_usage(path, "%s '%s' is too large (max %d)",
				       what, arg, INT_MAX);
		if (!err && !u)
			return p_usage(path, "%s '%s' is not a positive integer",
				       what, arg);
		if (err)
			return p_usage(path, "%s '%s' is not a number",
				       what, arg);
		*(unsigned int *)p = u;
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
		*(const char **)p = enum_value(opt, arg);
		if (*(const char **)p)
			return 0;
		enum_list(opt, list, sizeof(list));
		return p_usage(path, "%s '%s' is not one of %s", what, arg,
			       list);
	}
	return p_usage(path, "%s: unknown option type", what);
}

/*
 * Look an option up among the command's options then the global ones
 * (leading-only ones unless leading): by its letter c, or (c 0) by the
 * nlen characters of word after "--", exact or a unique prefix.  0, or a
 * usage error.
 */
static int find_opt(const struct rfs_opt_globals *gl,
		    const struct rfs_opt *opts, void *cfg, bool leading,
		    char c, const char *word, size_t nlen, const char *path,
		    struct opt_ref *out)
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
			if (o->positional || (t && o->leading && !leading) ||
			    (c ? o->short_opt != c :
			     strncmp(o->name, word + 2, nlen)))
				continue;
			if (c || strlen(o->name) == nlen) {
				*out = (struct opt_ref){ o, cfgs[t] };
				return 0;
			}
			if (!n++)
				*out = (struct opt_ref){ o, cfgs[t] };
			if (off < sizeof(cands))
				off += snprintf(cands + off, sizeof(cands) - off,
						"%s--%s", off ? ", " : "",
						o->name);
		}
	}
	if (c)
		return p_usage(path, "option '-%c' is unknown", c);
	if (n == 1)
		return 0;
	if (n > 1)
		return p_usage(path, "option '%s' is ambiguous (%s)", word,
			       cands);
	return p_usage(path, "option '%s' is unknown", word);
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

	for (i = 0; i < argc; i++) {
		w = argv[i];
		pos = next_positional(opts, npos);
		/* a positional may be a negative number */
		if (dashdash || w[0] != '-' || !w[1] ||
		    (pos && w[1] >= '0' && w[1] <= '9')) {
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
			if (find_opt(gl, opts, cfg, leading, 0, w,
				     eq ? (size_t)(eq - w - 2) : strlen(w + 2),
				     path, &r))
				return -1;
			arg = eq ? eq + 1 : NULL;
			if (r.opt->type == OPT_BOOL && arg)
				return usage_err(path, "option '--%s' takes no argument",
						 r.opt->name);
		} else {
			/* a bundle of flags (-jv), or -x ARG / -xARG */
			for (w++; *w; w++) {
				if (find_opt(gl, opts, cfg, leading, *w, NULL,
					     0, path, &r))
					return -1;
				if (r.opt->type != OPT_BOOL)
					break;
				if (set_value(&r, NULL, path))
					return -1;
			}
			if (!*w)
				continue;
			arg = w[1] ? w + 1 : NULL;
		}
		if (r.opt->type != OPT_BOOL && !arg) {
			if (i + 1 >= argc)
				return usage_err(path, "option '--%s' needs an argument %s",
						 r.opt->name, r.opt->metavar);
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

/* ---- help ---- */

#define HELP_INDENT	"       "	/* under "Usage: " */
#define HELP_WIDTH	79

/* "-j|--json", "--socket PATH" */
static void opt_spec(char *buf, size_t len, const struct rfs_opt *o)
{
	size_t off = 0;

	if (o->positional) {
		snprintf(buf, len, "%s", o->metavar);
		return;
	}
	if (o->short_opt)
		off = snprintf(buf, len, "-%c|", o->short_opt);
	off += snprintf(buf + off, len - off, "--%s", o->name);
	if (o->type != OPT_BOOL && off < len)
		snprintf(buf + off, len - off, " %s", o->metavar);
}

/*
 * lead, then "rfsctl attach IFACE [--cpus LIST] ...": positionals first,
 * then the options.  A line too wide for HELP_WIDTH goes on before an
 * optional word, under the command's first one.
 */
static void print_synopsis(const char *lead, const struct rfs_cmd *cmd,
			   const char *path)
{
	size_t hang = strlen(HELP_INDENT) + strlen("rfsctl ") + strlen(path) + 1;
	size_t col = printf("%srfsctl %s", lead, path);
	const struct rfs_opt *o;
	char spec[64], item[68];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (o = cmd->opts; o && o->name; o++) {
			if (o->positional != !pass)
				continue;
			opt_spec(spec, sizeof(spec), o);
			snprintf(item, sizeof(item), o->positional &&
				 !o->optional ? "%s" : "[%s]", spec);
			if (item[0] == '[' &&
			    col + 1 + strlen(item) > HELP_WIDTH)
				col = printf("\n%*s%s", (int)hang, "", item) - 1;
			else
				col += printf(" %s", item);
		}
	}
	printf("\n");
}

/* "NAME := { a | b | c }", wrapped at HELP_WIDTH under the first item. */
static void print_alts(const char *name, const char *const *items)
{
	size_t col, lead;
	int i;

	col = printf(HELP_INDENT "%s := { ", name);
	lead = col;
	for (i = 0; items[i]; i++) {
		if (i && col + strlen(items[i]) + 4 > HELP_WIDTH) {
			printf(" |\n%*s", (int)lead, "");
			col = lead;
		} else if (i) {
			col += printf(" | ");
		}
		col += printf("%s", items[i]);
	}
	printf(" }\n");
}

/* The metavars printed so far: each is defined once. */
struct metavars {
	const char *seen[32];
	int n;
};

/* The definitions of opts' metavars not in mv yet (enums, and the
 * non-terminals below), the first one after lead. */
static void print_defs(const struct rfs_opt *opts,
		       struct metavars *mv, const char *lead)
{
	const struct rfs_opt *o;
	int j;

	for (o = opts; o && o->name; o++) {
		if (!o->metavar || (o->type != OPT_ENUM &&
				    strcmp(o->metavar, "LIST")))
			continue;
		for (j = 0; j < mv->n; j++)
			if (!strcmp(mv->seen[j], o->metavar))
				break;
		if (j < mv->n || mv->n == (int)(sizeof(mv->seen) /
						 sizeof(mv->seen[0])))
			continue;
		mv->seen[mv->n++] = o->metavar;
		fputs(lead, stdout);
		lead = "";
		if (o->type == OPT_ENUM)
			print_alts(o->metavar, o->values);
		else
			printf(HELP_INDENT "LIST := { CPU | CPU-CPU }[,...]\n");
	}
}

/* Each command of cmds with its synopsis (usage lines), or its
 * definitions (mv). */
static void print_cmds(const struct rfs_cmd *const *cmds,
		       const char *prefix, struct metavars *mv)
{
	char path[128];

	for (; *cmds; cmds++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "",
			 prefix ? " " : "", (*cmds)->name);
		if ((*cmds)->sub)
			print_cmds((*cmds)->sub, path, mv);
		else if (mv)
			print_defs((*cmds)->opts, mv, "");
		else
			print_synopsis(HELP_INDENT, *cmds, path);
	}
}

void rfs_help_global(const struct rfs_cmd *const *cmds,
		     const struct rfs_opt *gopts)
{
	const char *items[16];
	char specs[16][64];
	struct metavars mv = { .n = 0 };
	int n = 0;

	printf("Usage: rfsctl [OPTIONS] COMMAND [ARGS]\n");
	print_cmds(cmds, NULL, NULL);
	printf("\n");
	for (; gopts->name && n < 15; gopts++, n++) {
		opt_spec(specs[n], sizeof(specs[n]), gopts);
		items[n] = specs[n];
	}
	items[n] = NULL;
	print_alts("OPTIONS", items);
	print_cmds(cmds, NULL, &mv);
}

void rfs_help_cmd(const struct rfs_cmd *cmd, const char *path)
{
	const struct rfs_cmd *const *c;
	struct metavars mv = { .n = 0 };
	const struct rfs_opt *o;
	char sub[128], spec[64];
	int w = 0, l;

	for (c = cmd->sub; c && *c; c++) {
		snprintf(sub, sizeof(sub), "%s %s", path, (*c)->name);
		if (c != cmd->sub)
			printf("\n");
		rfs_help_cmd(*c, sub);
	}
	if (cmd->sub)
		return;
	print_synopsis("Usage: ", cmd, path);
	printf("%s\n", cmd->doc);
	for (o = cmd->opts; o && o->name; o++) {
		opt_spec(spec, sizeof(spec), o);
		l = strlen(spec);
		if (o->help && l > w)
			w = l;
	}
	if (w)
		printf("\n");
	for (o = cmd->opts; o && o->name; o++) {
		if (!o->help)
			continue;
		opt_spec(spec, sizeof(spec), o);
		printf(HELP_INDENT "%-*s  %s\n", w, spec, o->help);
	}
	print_defs(cmd->opts, &mv, "\n");
}
