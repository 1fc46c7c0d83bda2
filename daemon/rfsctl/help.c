// SPDX-License-Identifier: GPL-2.0
/*
 * Help text, generated from the command and option tables so that it
 * cannot drift from what the parser takes.  man/rfsctl.8 repeats it word
 * for word (tests/integration/test_rfsctl_usage.sh checks that).
 */
#include <stdio.h>
#include <string.h>

#include "rfsctl.h"

#define HELP_INDENT	"       "	/* under "Usage: " */
#define HELP_WIDTH	79

/* Non-terminals that need a definition, besides the enums. */
static const struct {
	const char *metavar;
	const char *def;
} rfs_metavar_defs[] = {
	{ "LIST", "{ CPU | CPU-CPU }[,...]" },
};

/* "rfsctl attach IFACE [--cpus LIST] [--flow-cnt N] [--mode MODE]
 *  [--allow-unordered]" */
static void synopsis(char *buf, size_t len, const struct rfs_cmd *cmd,
		     const char *path)
{
	const struct rfs_opt *o;
	size_t off;
	int pass;

	off = snprintf(buf, len, "rfsctl %s", path);
	/* positionals first, in order, then the options */
	for (pass = 0; pass < 2; pass++) {
		for (o = cmd->opts; o && o->name && off < len; o++) {
			if (o->positional != !pass)
				continue;
			if (o->positional)
				off += snprintf(buf + off, len - off,
						o->optional ? " [%s]" : " %s",
						o->metavar);
			else if (o->type == OPT_BOOL)
				off += snprintf(buf + off, len - off, " [--%s]",
						o->name);
			else
				off += snprintf(buf + off, len - off,
						" [--%s %s]", o->name,
						o->metavar);
		}
	}
}

/* lead, then the synopsis line; one too wide for HELP_WIDTH goes on
 * before its last option that fits, under the command's first argument. */
static void print_synopsis(FILE *f, const char *lead, const char *line,
			   const char *path)
{
	size_t hang = strlen(HELP_INDENT) + strlen("rfsctl ") + strlen(path) + 1;
	size_t col = strlen(lead), cut;

	fputs(lead, f);
	while (col + strlen(line) > HELP_WIDTH) {
		for (cut = HELP_WIDTH - col; cut && strncmp(line + cut, " [", 2);
		     cut--)
			;
		if (!cut)
			break;
		fprintf(f, "%.*s\n%*s", (int)cut, line, (int)hang, "");
		line += cut + 1;
		col = hang;
	}
	fprintf(f, "%s\n", line);
}

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

/* "NAME := { a | b | c }", wrapped at HELP_WIDTH under the first item. */
static void print_alts(FILE *f, const char *name, const char *const *items,
		       int n)
{
	size_t col, lead;
	int i;

	col = fprintf(f, HELP_INDENT "%s := { ", name);
	lead = col;
	for (i = 0; i < n; i++) {
		if (i && col + strlen(items[i]) + 4 > HELP_WIDTH) {
			fprintf(f, " |\n%*s", (int)lead, "");
			col = lead;
		} else if (i) {
			col += fprintf(f, " | ");
		}
		col += fprintf(f, "%s", items[i]);
	}
	fprintf(f, " }\n");
}

struct metavars {
	const char *seen[32];
	int n;
};

static void print_defs_of(FILE *f, const struct rfs_opt *opts,
			  struct metavars *mv)
{
	const struct rfs_opt *o;
	size_t i;
	int j, n;

	for (o = opts; o && o->name; o++) {
		if (!o->metavar)
			continue;
		for (j = 0; j < mv->n; j++)
			if (!strcmp(mv->seen[j], o->metavar))
				break;
		if (j < mv->n || mv->n == (int)(sizeof(mv->seen) /
						 sizeof(mv->seen[0])))
			continue;
		mv->seen[mv->n++] = o->metavar;
		if (o->type == OPT_ENUM) {
			for (n = 0; o->values[n]; n++)
				;
			print_alts(f, o->metavar, o->values, n);
			continue;
		}
		for (i = 0; i < sizeof(rfs_metavar_defs) /
				sizeof(rfs_metavar_defs[0]); i++)
			if (!strcmp(rfs_metavar_defs[i].metavar, o->metavar))
				fprintf(f, HELP_INDENT "%s := %s\n", o->metavar,
					rfs_metavar_defs[i].def);
	}
}

static bool has_defs(const struct rfs_opt *opts)
{
	const struct rfs_opt *o;
	size_t i;

	for (o = opts; o && o->name; o++) {
		if (o->type == OPT_ENUM)
			return true;
		for (i = 0; o->metavar && i < sizeof(rfs_metavar_defs) /
					sizeof(rfs_metavar_defs[0]); i++)
			if (!strcmp(rfs_metavar_defs[i].metavar, o->metavar))
				return true;
	}
	return false;
}

static void print_usage_lines(FILE *f, const struct rfs_cmd *cmds,
			      const char *prefix)
{
	const struct rfs_cmd *c;
	char path[128], line[512];

	for (c = cmds; c->name; c++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "",
			 prefix ? " " : "", c->name);
		if (c->sub) {
			print_usage_lines(f, c->sub, path);
			continue;
		}
		synopsis(line, sizeof(line), c, path);
		print_synopsis(f, HELP_INDENT, line, path);
	}
}

static void print_cmd_defs(FILE *f, const struct rfs_cmd *cmds,
			   struct metavars *mv)
{
	const struct rfs_cmd *c;

	for (c = cmds; c->name; c++) {
		if (c->sub)
			print_cmd_defs(f, c->sub, mv);
		else
			print_defs_of(f, c->opts, mv);
	}
}

void rfs_help_global(FILE *f, const struct rfs_cmd *cmds,
		     const struct rfs_opt *gopts)
{
	const char *items[16];
	char specs[16][64];
	struct metavars mv = { .n = 0 };
	const struct rfs_opt *o;
	int n = 0;

	fprintf(f, "Usage: rfsctl [OPTIONS] COMMAND [ARGS]\n");
	print_usage_lines(f, cmds, NULL);
	fprintf(f, "\n");
	for (o = gopts; o->name && n < 16; o++) {
		opt_spec(specs[n], sizeof(specs[n]), o);
		items[n] = specs[n];
		n++;
	}
	print_alts(f, "OPTIONS", items, n);
	print_cmd_defs(f, cmds, &mv);
}

static void help_leaf(FILE *f, const struct rfs_cmd *cmd, const char *path)
{
	struct metavars mv = { .n = 0 };
	const struct rfs_opt *o;
	char line[512], spec[64];
	int w = 0, l;

	synopsis(line, sizeof(line), cmd, path);
	print_synopsis(f, "Usage: ", line, path);
	fprintf(f, "%s\n", cmd->doc);

	for (o = cmd->opts; o && o->name; o++) {
		opt_spec(spec, sizeof(spec), o);
		l = strlen(spec);
		if (o->help && l > w)
			w = l;
	}
	if (w)
		fprintf(f, "\n");
	for (o = cmd->opts; o && o->name; o++) {
		if (!o->help)
			continue;
		opt_spec(spec, sizeof(spec), o);
		fprintf(f, HELP_INDENT "%-*s  %s\n", w, spec, o->help);
	}
	if (has_defs(cmd->opts)) {
		fprintf(f, "\n");
		print_defs_of(f, cmd->opts, &mv);
	}
}

void rfs_help_cmd(FILE *f, const struct rfs_cmd *cmd, const char *path)
{
	const struct rfs_cmd *c;
	char sub[128];

	if (!cmd->sub) {
		help_leaf(f, cmd, path);
		return;
	}
	for (c = cmd->sub; c->name; c++) {
		snprintf(sub, sizeof(sub), "%s %s", path, c->name);
		if (c != cmd->sub)
			fprintf(f, "\n");
		rfs_help_cmd(f, c, sub);
	}
}
