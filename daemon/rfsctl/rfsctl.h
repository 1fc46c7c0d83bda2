/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsctl internals.  The CLI is one grammar: the command table in rfsctl.c
 * and the option tables next to each do_<cmd>.  The parser (opts.c), the
 * help text (help.c) and so the man page SYNOPSIS all come from them.
 *
 * rfsctl.c holds the tables and main(); nothing calls back into it.  The
 * parser and the help are handed the tables, each do_<cmd> the global
 * options (struct rfsctl_cfg), and output.c is told once where they are.
 */
#ifndef RFSCTL_H
#define RFSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "cpulist.h"

/* Exit codes: EXIT_SUCCESS, EXIT_FAILURE (runtime), and bad usage. */
#define RFSCTL_EXIT_USAGE	2

/* ---- option tables (opts.c) ---- */

enum rfs_opt_type {
	OPT_BOOL,	/* bool; takes no argument */
	OPT_STRING,	/* const char * */
	OPT_IFNAME,	/* const char *: 1..15 chars, no '/', ':' or space */
	OPT_UINT,	/* unsigned int: decimal 1..INT_MAX; 0 = not given */
	OPT_CPULIST,	/* struct rfs_opt_cpus, "0-3,6" */
	OPT_ENUM,	/* const char *: one of .values (unique prefix ok) */
};

struct rfs_opt_cpus {
	bool given;
	struct rfs_cpuset cpus;
};

struct rfs_opt {
	const char *name;	/* --name; NULL ends a table */
	char short_opt;		/* -x, or 0 */
	enum rfs_opt_type type;
	size_t offset;		/* of the value in the command's cfg */
	const char *metavar;	/* IFACE, N ...: in help and errors */
	const char *help;
	const char *const *values;	/* OPT_ENUM, NULL-terminated */
	bool positional;	/* in table order, after the command */
	bool optional;		/* positional that may be left out */
	bool leading;		/* global, valid only before COMMAND */
};

#define DEFINE_OPTION(_name, _type, _cfg, _member, ...)			\
	{ .name = (_name), .type = (_type),				\
	  .offset = offsetof(_cfg, _member), __VA_ARGS__ }
#define END_OPTIONS	{ .name = NULL }

/* ---- command table (rfsctl.c) ---- */

struct rfsctl_cfg;

struct rfs_cmd {
	const char *name;
	/* NULL for a group such as set; g: the global options */
	int (*func)(const struct rfsctl_cfg *g, const void *cfg);
	const struct rfs_opt *opts;
	const void *defaults;		/* copied into a fresh cfg */
	size_t cfg_size;
	const char *doc;		/* one sentence, < 80 columns */
	const struct rfs_cmd *sub;	/* a group's commands */
};

#define DEFINE_COMMAND(_name, _cmd, _doc)				\
	{ .name = (_name), .func = do_##_cmd, .opts = _cmd##_opts,	\
	  .defaults = &_cmd##_defaults,					\
	  .cfg_size = sizeof(_cmd##_defaults), .doc = (_doc) }
/* A group's help is that of its commands. */
#define DEFINE_GROUP(_name, _sub)					\
	{ .name = (_name), .sub = (_sub) }
#define END_COMMANDS	{ .name = NULL }

/* Global options, set before the command runs. */
struct rfsctl_cfg {
	const char *socket;
	bool json;
	bool pretty;
	bool verbose;
	bool help;
	bool version;
};

/* The global options' table and where they go: besides a command's own
 * options, rfs_opts_parse() takes these. */
struct rfs_opt_globals {
	const struct rfs_opt *opts;
	struct rfsctl_cfg *cfg;
};

/* Exact name, else the one command the name is a prefix of.  NULL with
 * *ambiguous set when several match. */
const struct rfs_cmd *rfs_cmd_select(const struct rfs_cmd *cmds,
				     const char *name, bool *ambiguous);
/* Parse argv[0..argc) (the words after the command) into cfg, the command
 * options first and then the non-leading global ones (gl).  stop: return
 * at the first positional (global options before COMMAND).  Returns the
 * number of words used, or -1 after a usage error was reported. */
int rfs_opts_parse(const struct rfs_opt_globals *gl,
		   const struct rfs_opt *opts, void *cfg, int argc,
		   char **argv, const char *path, bool stop);
/* Strict positive decimal (1..INT_MAX), rfs_parse_u32()'s syntax: 0, or
 * -EINVAL (not a number), -EDOM (0) or -ERANGE (above INT_MAX). */
int rfs_parse_uint(const char *s, unsigned int *val);

/* ---- help (help.c) ---- */

/* Every command of cmds, then the global options gopts. */
void rfs_help_global(FILE *f, const struct rfs_cmd *cmds,
		     const struct rfs_opt *gopts);
/* path: "attach", "set flow-cnt", "set" (a group: all its commands) */
void rfs_help_cmd(FILE *f, const struct rfs_cmd *cmd, const char *path);

/* ---- output (output.c) ---- */

/* Where the global options are: -j and -p as they are when output is
 * made (the parser may still be setting them). */
void rfs_output_init(const struct rfsctl_cfg *g);
/* Errors: "rfsctl: <msg>" on stderr, or {"error": "<msg>"} on stdout
 * under -j.  p_usage appends the hint ", try 'rfsctl help'" (path NULL)
 * or ", try 'rfsctl <path> --help'" and returns RFSCTL_EXIT_USAGE. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int p_usage(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print one JSON document on stdout (-p: pretty). */
void p_json(struct json_object *obj);

/* A plain text table: cells are added row by row, then printed aligned
 * (left or right per column). */
struct rfs_table;
struct rfs_table *rfs_table_new(int ncols, const bool *left);
void rfs_table_add(struct rfs_table *t, const char *cell);
void rfs_table_addf(struct rfs_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rfs_table_print(struct rfs_table *t, FILE *f, const char *indent);
void rfs_table_free(struct rfs_table *t);

/* A JSON value as plain text: null "-", int array as a CPU list "0-3,6",
 * object as "k v, k v". */
void rfs_fmt_value(struct json_object *v, char *buf, size_t len);
/* Member key of obj as text ("-" if absent). */
void rfs_fmt_member(struct json_object *obj, const char *key, char *buf,
		    size_t len);

/* "label   value" lines, one per member of obj: the keys in order first,
 * then the others (a newer rfsd may add some); keys in skip never. */
void rfs_print_kv(FILE *f, struct json_object *obj, const char *indent,
		  const char *const *order, const char *const *skip);

/* ---- talking to rfsd (request.c) ---- */

/* {"cmd": name} */
struct json_object *rfs_req_new(const char *cmd);
void rfs_req_add_str(struct json_object *req, const char *key,
		     const char *val);
void rfs_req_add_int(struct json_object *req, const char *key, int val);
void rfs_req_add_cpus(struct json_object *req, const char *key,
		      const struct rfs_cpuset *cpus);
/*
 * Send req (consumed) to rfsd at g->socket and wait up to the default
 * timeout plus extra_ms.  0: *reply to put, *result inside it.  Otherwise
 * the error (the daemon's own message when it refused) is printed:
 * EXIT_FAILURE.  quiet: print nothing (the error stays in err if err is
 * not NULL).
 */
int rfs_call(const struct rfsctl_cfg *g, struct json_object *req,
	     int extra_ms, struct json_object **reply,
	     struct json_object **result);
int rfs_call_quiet(const struct rfsctl_cfg *g, struct json_object *req,
		   struct json_object **reply, struct json_object **result,
		   char *err, size_t len);
/* The result as the type a command expects, or an error (EXIT_FAILURE). */
int rfs_expect(struct json_object *result, enum json_type type,
	       const char *what);

/* ---- commands ---- */

struct attach_cfg {
	const char *iface;
	struct rfs_opt_cpus cpus;
	unsigned int flow_cnt;
	const char *mode;
	bool allow_unordered;
};
struct iface_cfg {
	const char *iface;
};
struct none_cfg {
	int _unused;
};
struct stats_cfg {
	const char *iface;
	const char *format;	/* NULL, "table" or "prometheus" */
};
struct flows_cfg {
	const char *iface;
	unsigned int limit;
	unsigned int interval;
};
struct top_cfg {
	unsigned int interval;
	bool once;
};
struct explain_cfg {
	const char *iface;
	const char *src;
	const char *dst;
	const char *sport;
	const char *dport;
	const char *proto;
	const char *rx_cpu;
};
struct set_num_cfg {
	unsigned int value;
};
struct set_iface_num_cfg {
	const char *iface;
	unsigned int value;
};
struct set_cpus_cfg {
	const char *iface;
	struct rfs_opt_cpus cpus;
};

/* cmd_iface.c */
extern const struct rfs_opt attach_opts[], detach_opts[],
	set_sock_flow_entries_opts[], set_flow_cnt_opts[], set_cpus_opts[];
extern const struct attach_cfg attach_defaults;
extern const struct iface_cfg detach_defaults;
extern const struct set_num_cfg set_sock_flow_entries_defaults;
extern const struct set_iface_num_cfg set_flow_cnt_defaults;
extern const struct set_cpus_cfg set_cpus_defaults;
int do_attach(const struct rfsctl_cfg *g, const void *cfg);
int do_detach(const struct rfsctl_cfg *g, const void *cfg);
int do_set_sock_flow_entries(const struct rfsctl_cfg *g, const void *cfg);
int do_set_flow_cnt(const struct rfsctl_cfg *g, const void *cfg);
int do_set_cpus(const struct rfsctl_cfg *g, const void *cfg);
/* the interface object (attach, set, status) as plain text */
void rfs_print_iface_plain(struct json_object *ifc);

/* cmd_show.c */
extern const struct rfs_opt status_opts[], stats_opts[];
extern const struct none_cfg status_defaults;
extern const struct stats_cfg stats_defaults;
int do_status(const struct rfsctl_cfg *g, const void *cfg);
int do_stats(const struct rfsctl_cfg *g, const void *cfg);

/* cmd_flows.c */
extern const struct rfs_opt flows_opts[];
extern const struct flows_cfg flows_defaults;
int do_flows(const struct rfsctl_cfg *g, const void *cfg);

/* cmd_top.c (and top_*.c) */
extern const struct rfs_opt top_opts[];
extern const struct top_cfg top_defaults;
int do_top(const struct rfsctl_cfg *g, const void *cfg);

/* cmd_explain.c */
extern const struct rfs_opt explain_opts[];
extern const struct explain_cfg explain_defaults;
int do_explain(const struct rfsctl_cfg *g, const void *cfg);

#endif /* RFSCTL_H */
