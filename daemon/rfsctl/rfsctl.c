// SPDX-License-Identifier: GPL-2.0
/*
 * rfsctl [OPTIONS] COMMAND [ARGS]: control rfsd over its unix socket.
 * The command table below is the whole grammar: commands are picked by
 * unique prefix at every level ("rfsctl set f" is "set flow-cnt"), their
 * words parsed by their option tables, the help text made from both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "log.h"
#include "rfsctl.h"

/* The global options: main's, handed to every command. */
static struct rfsctl_cfg rfsctl_cfg;

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

static const struct rfs_opt_globals rfsctl_globals = {
	.opts = rfsctl_opts,
	.cfg = &rfsctl_cfg,
};

static int do_version(const struct rfsctl_cfg *g, const void *cfg);
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
	if (rfs_opts_parse(&rfsctl_globals, cmd->opts, cfg, argc, argv, path,
			   false) < 0) {
		free(cfg);
		return RFSCTL_EXIT_USAGE;
	}
	apply_globals();
	if (rfsctl_cfg.help) {
		rfs_help_cmd(cmd, path);
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

/* argv[0] names a command of cmds, the commands of group (NULL: the top
 * level, path NULL; else group's path, e.g. "set"). */
static int dispatch(const struct rfs_cmd *group,
		    const struct rfs_cmd *const *cmds, const char *path,
		    int argc, char **argv)
{
	const struct rfs_cmd *cmd;
	char sub[128];
	int n;

	if (argc < 1) {
		apply_globals();
		if (rfsctl_cfg.help) {
			if (group)
				rfs_help_cmd(group, path);
			else
				rfs_help_global(rfsctl_cmds,
						rfsctl_opts);
			return EXIT_SUCCESS;
		}
		return p_usage(path, "missing command");
	}
	cmd = select_cmd(cmds, argv[0], path);
	if (!cmd)
		return RFSCTL_EXIT_USAGE;

	snprintf(sub, sizeof(sub), "%s%s%s", path ? path : "",
		 path ? " " : "", cmd->name);
	if (!cmd->sub)
		return run_leaf(cmd, sub, argc - 1, argv + 1);
	/* a group: global options may sit between it and its command */
	n = rfs_opts_parse(&rfsctl_globals, NULL, NULL, argc - 1, argv + 1,
			   sub, true);
	if (n < 0)
		return RFSCTL_EXIT_USAGE;
	return dispatch(cmd, cmd->sub, sub, argc - 1 - n, argv + 1 + n);
}

static int do_help(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct help_cfg *c = cfg;
	const struct rfs_cmd *cmd;

	if (!c->command) {
		rfs_help_global(rfsctl_cmds, rfsctl_opts);
		return EXIT_SUCCESS;
	}
	cmd = select_cmd(rfsctl_cmds, c->command, NULL);
	if (!cmd)
		return RFSCTL_EXIT_USAGE;
	rfs_help_cmd(cmd, cmd->name);
	return EXIT_SUCCESS;
}

/* cfg NULL: --version, which does not ask rfsd */
static int do_version(const struct rfsctl_cfg *g, const void *cfg)
{
	struct json_object *result = NULL, *v, *obj;
	char err[RFS_CTL_ERR_LEN];
	const char *rfsd = NULL;

	/* rfsd not answering is no error here: -v says why */
	if (cfg && rfs_call(g, rfs_req_new("version", NULL, NULL), 0, &result,
			    err, sizeof(err)))
		pr_debug("%s\n", err);
	else if (cfg && json_object_is_type(v = rfs_get(result, "version"),
					    json_type_string))
		rfsd = json_object_get_string(v);
	if (!g->json) {
		printf("rfsctl %s\n", RFS_VERSION);
		if (rfsd)
			printf("rfsd %s\n", rfsd);
	} else {
		obj = json_object_new_object();
		json_object_object_add(obj, "rfsctl",
				       json_object_new_string(RFS_VERSION));
		if (cfg)
			json_object_object_add(obj, "rfsd", rfsd ?
				json_object_new_string(rfsd) : NULL);
		p_json(obj);
		json_object_put(obj);
	}
	json_object_put(result);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	int n;

	rfs_output_init(&rfsctl_cfg);
	prescan_json(argc, argv);
	n = rfs_opts_parse(&rfsctl_globals, NULL, NULL, argc - 1, argv + 1,
			   NULL, true);
	if (n < 0)
		return RFSCTL_EXIT_USAGE;
	if (rfsctl_cfg.version) {
		apply_globals();
		return do_version(&rfsctl_cfg, NULL);
	}
	return dispatch(NULL, rfsctl_cmds, NULL, argc - 1 - n, argv + 1 + n);
}
