// SPDX-License-Identifier: GPL-2.0
/* Commands are picked by unique prefix at every level ("rfsctl set f" is
 * "set flow-cnt"), their words parsed by their option tables, and the
 * help text made from both so that it cannot drift (man/rfsctl.8 repeats
 * it word for word).  A bad number or CPU list is a usage error (exit 2)
 * before rfsd is asked; range checks (powers of two, online CPUs) are
 * rfsd's. */
#include <limits.h>
#include <net/if.h>

#include "rfsctl.h"

static const struct rfs_opt rfsctl_opts[] = {
	DEFINE_OPTION("socket", OPT_STRING, struct rfsctl_cfg, socket,
		      .metavar = "PATH"),
	DEFINE_OPTION("json", OPT_BOOL, struct rfsctl_cfg, json,
		      .short_opt = 'j'),
	DEFINE_OPTION("pretty", OPT_BOOL, struct rfsctl_cfg, pretty,
		      .short_opt = 'p'),
	DEFINE_OPTION("verbose", OPT_BOOL, struct rfsctl_cfg, verbose,
		      .short_opt = 'v'),
	DEFINE_OPTION("help", OPT_BOOL, struct rfsctl_cfg, help,
		      .short_opt = 'h'),
	DEFINE_OPTION("version", OPT_BOOL, struct rfsctl_cfg, version,
		      .short_opt = 'V', .leading = true),
	END_OPTIONS
};

/* cfg NULL: --version, which does not ask rfsd */
static int do_version(const struct rfsctl_cfg *g, const void *cfg)
{
	struct json_object *result = NULL, *obj = json_object_new_object(), *v;
	char err[RFS_CTL_ERR_LEN];

	json_object_object_add(obj, "rfsctl",
			       json_object_new_string(RFS_VERSION));
	/* rfsd not answering is no error here: -v says why */
	if (cfg && rfs_call(g, rfs_req_new("version", NULL, NULL),
			    RFS_CTL_TIMEOUT_MS, &result, err, sizeof(err)))
		pr_debug("%s\n", err);
	v = rfs_get(result, "version");
	if (cfg)
		json_object_object_add(obj, "rfsd",
				       json_object_is_type(v, json_type_string) ?
				       json_object_get(v) : NULL);
	if (g->json) {
		p_json(obj);
	} else {
		json_object_object_foreach(obj, name, val)
			if (val)
				printf("%s %s\n", name,
				       json_object_get_string(val));
	}
	json_object_put(obj);
	json_object_put(result);
	return EXIT_SUCCESS;
}

static const struct rfs_opt version_opts[] = { END_OPTIONS };
static const struct { int unused; } version_defaults;

static int do_help(const struct rfsctl_cfg *g, const void *cfg);
static const struct help_cfg {
	const char *command;
} help_defaults;
static const struct rfs_opt help_opts[] = {
	DEFINE_OPTION("command", OPT_STRING, struct help_cfg, command,
		      .positional = true, .optional = true,
		      .metavar = "COMMAND"),
	END_OPTIONS
};

static const struct rfs_cmd rfs_cmd_version = DEFINE_COMMAND("version",
	version, do_version,
	"Show the versions of rfsctl and, if it answers, of rfsd.");
static const struct rfs_cmd rfs_cmd_help = DEFINE_COMMAND("help", help,
	do_help, "Show the help text of COMMAND, or of all commands.");
static const struct rfs_cmd *const set_cmds[] = {
	&rfs_cmd_set_sock_flow_entries, &rfs_cmd_set_flow_cnt,
	&rfs_cmd_set_cpus, NULL
};
/* A group's help is that of its commands. */
static const struct rfs_cmd rfs_cmd_set = { .name = "set", .sub = set_cmds };

static const struct rfs_cmd *const rfsctl_cmds[] = {
	&rfs_cmd_attach, &rfs_cmd_detach, &rfs_cmd_status, &rfs_cmd_stats,
	&rfs_cmd_flows, &rfs_cmd_top, &rfs_cmd_explain, &rfs_cmd_set,
	&rfs_cmd_version, &rfs_cmd_help, NULL
};

struct opt_ref {
	const struct rfs_opt *opt;
	void *cfg;
};

/* The value arg is, or the one value it is a prefix of; or NULL. */
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

static int set_value(const struct opt_ref *r, const char *arg,
		     const char *path)
{
	const struct rfs_opt *opt = r->opt;
	void *p = (char *)r->cfg + opt->offset;
	const char *const *v;
	char why[160] = "";
	size_t off;
	__u32 u;
	int err;

	switch (opt->type) {
	case OPT_BOOL:
		*(bool *)p = true;
		break;
	case OPT_IFNAME:
		if (strlen(arg) >= IFNAMSIZ)
			snprintf(why, sizeof(why), "is too long for an interface name (max %d characters)",
				 IFNAMSIZ - 1);
		else if (!rfs_ifname_valid(arg))
			snprintf(why, sizeof(why), "is not a valid interface name");
		/* fall through */
	case OPT_STRING:
		*(const char **)p = arg;
		break;
	case OPT_UINT:
		err = rfs_parse_u32(arg, &u);
		if (err == -ERANGE || (!err && u > INT_MAX))
			snprintf(why, sizeof(why), "is too large (max %d)",
				 INT_MAX);
		else if (err || !u)
			snprintf(why, sizeof(why), "is not a %s",
				 err ? "number" : "positive integer");
		else
			*(unsigned int *)p = u;
		break;
	case OPT_INT:
		if (rfs_parse_u32(arg, &u) || u > (unsigned int)opt->max)
			snprintf(why, sizeof(why), "is not a %s (0..%d)",
				 opt->noun, opt->max);
		else
			*(int *)p = u;
		break;
	case OPT_CPULIST:
		err = rfs_cpulist_parse(arg, p, false);
		if (err == -ERANGE)
			snprintf(why, sizeof(why), "has a CPU above %d",
				 RFS_MAX_CPUS - 1);
		else if (err)
			snprintf(why, sizeof(why), "is not a CPU list such as 0-3,6");
		break;
	case OPT_ENUM:
		*(const char **)p = enum_value(opt, arg);
		off = *(const char **)p ? 0 :
		      snprintf(why, sizeof(why), "is not one of");
		for (v = opt->values; off && *v && off < sizeof(why); v++)
			off += snprintf(why + off, sizeof(why) - off, "%s%s",
					v == opt->values ? " " : v[1] ? ", " :
					" or ", *v);
		break;
	}
	/* named as "--flow-cnt", or a positional by its metavar */
	if (why[0])
		return p_usage(path, "%s%s '%s' %s", opt->positional ? "" : "--",
			       opt->positional ? opt->metavar : opt->name, arg,
			       why);
	return 0;
}

/* The command's option, else the global one (leading-only ones only if
 * leading), named by letter c or else the nlen characters of word after
 * "--", exact or a unique prefix.  0, or a usage error. */
static int find_opt(const struct rfs_opt *opts, void *cfg, bool leading,
		    char c, const char *word, size_t nlen, const char *path,
		    struct opt_ref *out)
{
	const struct rfs_opt *tables[2] = { opts, rfsctl_opts };
	void *cfgs[2] = { cfg, &rfsctl_cfg };
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

#define usage_err(...)	(p_usage(__VA_ARGS__), -1)

/* The words after the command into cfg, the global options into
 * rfsctl_cfg.  stop: return at the first positional (the words before
 * COMMAND).  The number of words used, or -1 once a usage error is out. */
static int parse_opts(const struct rfs_opt *opts, void *cfg, int argc,
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
			if (find_opt(opts, cfg, leading, 0, w,
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
				if (find_opt(opts, cfg, leading, *w, NULL,
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
	if (rfsctl_cfg.help)
		return argc;
	pos = next_positional(opts, npos);
	if (pos && !pos->optional)
		return usage_err(path, "missing %s", pos->metavar);
	return argc;
}

/* ---- help ---- */

#define HELP_INDENT	"       "	/* under "Usage: " */
#define HELP_WIDTH	79

/* "-j|--json", "--socket PATH"; its length */
static int opt_spec(char *buf, size_t len, const struct rfs_opt *o)
{
	bool arg = o->type != OPT_BOOL;
	char short_opt[4] = "";

	if (o->positional)
		return snprintf(buf, len, "%s", o->metavar);
	if (o->short_opt)
		snprintf(short_opt, sizeof(short_opt), "-%c|", o->short_opt);
	return snprintf(buf, len, "%s--%s%s%s", short_opt, o->name,
			arg ? " " : "", arg ? o->metavar : "");
}

/* lead, then "rfsctl attach IFACE [--cpus LIST] ...", wrapped before an
 * optional word under the command's first one. */
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

/* "NAME := { a | b | c }", wrapped at HELP_WIDTH under the first item:
 * the items, or (items NULL) the specs of opts. */
static void print_alts(const char *name, const char *const *items,
		       const struct rfs_opt *opts)
{
	const char *item;
	size_t col, lead;
	char spec[64];
	int i;

	col = printf(HELP_INDENT "%s := { ", name);
	lead = col;
	for (i = 0; items ? items[i] : opts[i].name; i++) {
		item = items ? items[i] : spec;
		if (!items)
			opt_spec(spec, sizeof(spec), &opts[i]);
		if (i && col + strlen(item) + 4 > HELP_WIDTH) {
			printf(" |\n%*s", (int)lead, "");
			col = lead;
		} else if (i) {
			col += printf(" | ");
		}
		col += printf("%s", item);
	}
	printf(" }\n");
}

/* The definitions of opts' enums and LISTs not in seen (" NAME " each)
 * yet, the first after lead. */
#define SEEN_LEN	256

static void print_defs(const struct rfs_opt *opts, char *seen,
		       const char *lead)
{
	const struct rfs_opt *o;
	char tag[32];

	for (o = opts; o && o->name; o++) {
		snprintf(tag, sizeof(tag), " %s ", o->metavar ?: "");
		if ((o->type != OPT_ENUM && strcmp(tag, " LIST ")) ||
		    strstr(seen, tag) || strlen(seen) + strlen(tag) >= SEEN_LEN)
			continue;
		strcat(seen, tag);
		fputs(lead, stdout);
		lead = "";
		if (o->type == OPT_ENUM)
			print_alts(o->metavar, o->values, NULL);
		else
			printf(HELP_INDENT "LIST := { CPU | CPU-CPU }[,...]\n");
	}
}

/* Each command's synopsis, or (seen) its definitions. */
static void print_cmds(const struct rfs_cmd *const *cmds,
		       const char *prefix, char *seen)
{
	char path[128];

	for (; *cmds; cmds++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "",
			 prefix ? " " : "", (*cmds)->name);
		if ((*cmds)->sub)
			print_cmds((*cmds)->sub, path, seen);
		else if (seen)
			print_defs((*cmds)->opts, seen, "");
		else
			print_synopsis(HELP_INDENT, *cmds, path);
	}
}

static void help_global(void)
{
	char seen[SEEN_LEN] = "";

	printf("Usage: rfsctl [OPTIONS] COMMAND [ARGS]\n");
	print_cmds(rfsctl_cmds, NULL, NULL);
	printf("\n");
	print_alts("OPTIONS", NULL, rfsctl_opts);
	print_cmds(rfsctl_cmds, NULL, seen);
}

/* path: "attach", "set flow-cnt", "set" (a group: all its commands) */
static void help_cmd(const struct rfs_cmd *cmd, const char *path)
{
	const struct rfs_cmd *const *c;
	char seen[SEEN_LEN] = "";
	const struct rfs_opt *o;
	char sub[128], spec[64];
	int w = 0;

	for (c = cmd->sub; c && *c; c++) {
		snprintf(sub, sizeof(sub), "%s %s", path, (*c)->name);
		if (c != cmd->sub)
			printf("\n");
		help_cmd(*c, sub);
	}
	if (cmd->sub)
		return;
	print_synopsis("Usage: ", cmd, path);
	printf("%s\n", cmd->doc);
	for (o = cmd->opts; o && o->name; o++)
		if (o->help && opt_spec(spec, sizeof(spec), o) > w)
			w = opt_spec(spec, sizeof(spec), o);
	if (w)
		printf("\n");
	for (o = cmd->opts; o && o->name; o++) {
		if (!o->help)
			continue;
		opt_spec(spec, sizeof(spec), o);
		printf(HELP_INDENT "%-*s  %s\n", w, spec, o->help);
	}
	print_defs(cmd->opts, seen, "\n");
}

/* Errors must come out as JSON under -j even when the error is in the
 * words before -j, so look for -j/-p before parsing anything. */
static void prescan_json(int argc, char **argv)
{
	const char *w;
	int i;

	for (i = 1; i < argc; i++) {
		w = argv[i];
		if (!strcmp(w, "--"))
			return;
		if (!strcmp(w, "--json") || !strcmp(w, "--pretty") ||
		    (w[0] == '-' && w[1] && w[1] != '-' &&
		     strspn(w + 1, "jpvhV") == strlen(w + 1) &&
		     strpbrk(w + 1, "jp")))
			rfsctl_cfg.json = true;
	}
}

/* Global options are final once the command's words are parsed. */
static void apply_globals(void)
{
	const char *env;

	if (rfsctl_cfg.pretty)
		rfsctl_cfg.json = true;
	rfs_log_init("rfsctl", rfsctl_cfg.verbose);
	if (!rfsctl_cfg.socket) {
		env = getenv(RFS_CTL_SOCKET_ENV);
		rfsctl_cfg.socket = env && *env ? env : RFS_CTL_SOCKET_DEFAULT;
	}
}

static int run_leaf(const struct rfs_cmd *cmd, const char *path, int argc,
		    char **argv)
{
	void *cfg;
	int ret;

	cfg = calloc(1, cmd->cfg_size);
	if (!cfg) {
		p_err("can't run '%s': out of memory", path);
		return EXIT_FAILURE;
	}
	memcpy(cfg, cmd->defaults, cmd->cfg_size);
	if (parse_opts(cmd->opts, cfg, argc, argv, path, false) < 0) {
		free(cfg);
		return RFSCTL_EXIT_USAGE;
	}
	apply_globals();
	if (rfsctl_cfg.help) {
		help_cmd(cmd, path);
		ret = EXIT_SUCCESS;
	} else {
		ret = cmd->func(&rfsctl_cfg, cfg);
	}
	free(cfg);
	return ret;
}

/* Exact name, else the one command name is a prefix of; NULL once
 * "unknown" or "ambiguous" is reported. */
static const struct rfs_cmd *select_cmd(const struct rfs_cmd *const *cmds,
					const char *name, const char *path)
{
	const struct rfs_cmd *found = NULL;
	size_t len = strlen(name), off = 0;
	char cands[256] = "";
	int n = 0;

	for (; len && *cmds; cmds++) {
		if (!strcmp((*cmds)->name, name))
			return *cmds;
		if (strncmp((*cmds)->name, name, len))
			continue;
		found = *cmds;
		n++;
		if (off < sizeof(cands))
			off += snprintf(cands + off, sizeof(cands) - off,
					"%s%s", off ? ", " : "", found->name);
	}
	if (n == 1)
		return found;
	if (n)
		p_usage(path, "command '%s' is ambiguous (%s)", name, cands);
	else
		p_usage(path, "command '%s' is unknown", name);
	return NULL;
}

/* argv[0] names a command of group (NULL: the top level, path NULL;
 * else group's path, e.g. "set"). */
static int dispatch(const struct rfs_cmd *group, const char *path, int argc,
		    char **argv)
{
	const struct rfs_cmd *cmd;
	char sub[128];
	int n;

	if (argc < 1) {
		apply_globals();
		if (rfsctl_cfg.help) {
			group ? help_cmd(group, path) : help_global();
			return EXIT_SUCCESS;
		}
		return p_usage(path, "missing command");
	}
	cmd = select_cmd(group ? group->sub : rfsctl_cmds, argv[0], path);
	if (!cmd)
		return RFSCTL_EXIT_USAGE;

	snprintf(sub, sizeof(sub), "%s%s%s", path ? path : "",
		 path ? " " : "", cmd->name);
	if (!cmd->sub)
		return run_leaf(cmd, sub, argc - 1, argv + 1);
	/* a group: global options may sit between it and its command */
	n = parse_opts(NULL, NULL, argc - 1, argv + 1, sub, true);
	if (n < 0)
		return RFSCTL_EXIT_USAGE;
	return dispatch(cmd, sub, argc - 1 - n, argv + 1 + n);
}

/* "help CMD" is "CMD --help", a group's too */
static int do_help(const struct rfsctl_cfg *g, const void *cfg)
{
	char *cmd = (char *)((const struct help_cfg *)cfg)->command;

	rfsctl_cfg.help = true;
	return dispatch(NULL, NULL, cmd ? 1 : 0, &cmd);
}

int main(int argc, char **argv)
{
	int n;

	prescan_json(argc, argv);
	n = parse_opts(NULL, NULL, argc - 1, argv + 1, NULL, true);
	if (n < 0)
		return RFSCTL_EXIT_USAGE;
	if (rfsctl_cfg.version) {
		apply_globals();
		return do_version(&rfsctl_cfg, NULL);
	}
	return dispatch(NULL, NULL, argc - 1 - n, argv + 1 + n);
}
