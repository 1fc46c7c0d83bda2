/* SPDX-License-Identifier: GPL-2.0 */
/* rfsctl internals (HACKING.md maps the files); nothing calls back into
 * rfsctl.c, whose tables and those next to each do_<cmd> are the grammar. */
#ifndef RFSCTL_H
#define RFSCTL_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "log.h"	/* and stdarg.h, time.h */
#include "parse.h"	/* and stdbool.h, linux/types.h */
#include "rfs_prom.h"	/* and stdio.h, json-c */

#define RFSCTL_EXIT_USAGE	2	/* else EXIT_SUCCESS, EXIT_FAILURE */

enum rfs_opt_type {
	OPT_BOOL,	/* bool; takes no argument */
	OPT_STRING,	/* const char * */
	OPT_IFNAME,	/* const char *: 1..15 chars, no '/', ':' or space */
	OPT_UINT,	/* unsigned int: decimal 1..INT_MAX; 0 = not given */
	OPT_INT,	/* int: decimal 0..max; -1 = not given */
	OPT_CPULIST,	/* struct rfs_cpuset, "0-3,6"; empty = not given */
	OPT_ENUM,	/* const char *: one of .values (unique prefix ok) */
};

struct rfs_opt {
	const char *name;	/* --name; NULL ends a table */
	char short_opt;		/* -x, or 0 */
	enum rfs_opt_type type;
	size_t offset;		/* of the value in the command's cfg */
	const char *metavar;	/* IFACE, N ...: in help and errors */
	const char *help;
	const char *const *values;	/* OPT_ENUM, NULL-terminated */
	int max;			/* OPT_INT */
	const char *noun;		/* OPT_INT: "port number" */
	bool positional;	/* in table order, after the command */
	bool optional;		/* positional that may be left out */
	bool leading;		/* global, valid only before COMMAND */
	const char *key;	/* its member in the request, if sent as is */
};

#define DEFINE_OPTION(_name, _type, _cfg, _member, ...)			\
	{ .name = (_name), .type = (_type),				\
	  .offset = offsetof(_cfg, _member), __VA_ARGS__ }
#define END_OPTIONS	{ .name = NULL }
#define IFACE_OPTION(_cfg, _help, ...)					\
	DEFINE_OPTION("iface", OPT_IFNAME, _cfg, iface,			\
		      .positional = true, .metavar = "IFACE", .key = "iface", \
		      .help = (_help), __VA_ARGS__)

struct rfsctl_cfg {
	const char *socket;
	bool json;
	bool pretty;
	bool verbose;
	bool help;
	bool version;
};

struct rfs_cmd {
	const char *name;
	int (*func)(const struct rfsctl_cfg *g, const void *cfg);
	const struct rfs_opt *opts;
	const void *defaults;		/* copied into a fresh cfg */
	size_t cfg_size;
	const char *doc;		/* one sentence, < 80 columns */
	const struct rfs_cmd *const *sub;	/* a group's commands */
};

#define DEFINE_COMMAND(_name, _cmd, _func, _doc)			\
	{ .name = (_name), .func = (_func), .opts = _cmd##_opts,	\
	  .defaults = &_cmd##_defaults,					\
	  .cfg_size = sizeof(_cmd##_defaults), .doc = (_doc) }

extern const struct rfs_cmd rfs_cmd_attach, rfs_cmd_detach, rfs_cmd_status,
	rfs_cmd_stats, rfs_cmd_flows, rfs_cmd_top, rfs_cmd_explain,
	rfs_cmd_set_sock_flow_entries, rfs_cmd_set_flow_cnt, rfs_cmd_set_cpus;

/* The global options (common.c): main's, handed to every command.  The
 * p_ family reads -j and -p when it prints: the parser may still set them. */
extern struct rfsctl_cfg rfsctl_cfg;

/* Errors: "rfsctl: <msg>" on stderr, or {"error": "<msg>"} on stdout
 * under -j.  p_usage appends the hint ", try 'rfsctl help'" (path NULL)
 * or ", try 'rfsctl <path> --help'" and returns RFSCTL_EXIT_USAGE. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int p_usage(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void p_json(struct json_object *obj);

/* A JSON value as plain text: null "-", int array "0-3,6", object "k v, k v" */
void rfs_fmt_value(struct json_object *v, char *buf, size_t len);
/* obj's member key (NULL if absent), as a string or number (dflt if
 * absent), as a counter or flag (0 if absent); arr's length (0: none). */
static inline struct json_object *rfs_get(struct json_object *obj,
					  const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(obj, key, &v);
	return v;
}

#define rfs_str(obj, key, dflt)	(rfs_get(obj, key) ?			\
	json_object_get_string(rfs_get(obj, key)) : (dflt))
#define rfs_num(obj, key, dflt)	(rfs_get(obj, key) ?			\
	json_object_get_int64(rfs_get(obj, key)) : (long long)(dflt))
#define rfs_u64(obj, key)	json_object_get_uint64(rfs_get(obj, key))
#define rfs_bool(obj, key)	json_object_get_boolean(rfs_get(obj, key))
#define rfs_len(arr)	(json_object_is_type(arr, json_type_array) ?	\
			 json_object_array_length(arr) : 0)

/* "label   value" lines, one per member of obj: the keys in order first,
 * then the others (a newer rfsd may add some); keys in skip never. */
void rfs_print_kv(struct json_object *obj, const char *indent,
		  const char *const *order, const char *const *skip);

/* {"cmd": cmd} and a member per option of opts with a .key that was
 * given (a string, a number other than 0, a CPU list, a true flag). */
struct json_object *rfs_req_new(const char *cmd, const struct rfs_opt *opts,
				const void *cfg);

/* rfs_ctl_ask() on a connection of its own, or (req NULL) the requests
 * of /metrics (rfs_prom_collect()).  An error is printed, or (err) put
 * in err for the caller. */
int rfs_call(const struct rfsctl_cfg *g, struct json_object *req,
	     int timeout_ms, struct json_object **result, char *err,
	     size_t len);
/* The object or array type a command expects, or an error (EXIT_FAILURE) */
int rfs_expect(struct json_object *result, enum json_type type,
	       const char *what);
/* rfs_call(), then the result's member key (NULL: the result), checked
 * to be of type (what names it; NULL: not checked), printed as it is
 * under -j, else by plain(it, arg) (NULL: nothing). */
int rfs_show(const struct rfsctl_cfg *g, struct json_object *req,
	     int extra_ms, const char *key, enum json_type type,
	     const char *what,
	     void (*plain)(struct json_object *r, const void *arg),
	     const void *arg);

/* the interface object (attach, set, status) as plain text */
void rfs_print_iface_plain(struct json_object *ifc);

enum rfs_top_ctr {
	RFS_TOP_SEEN,
	RFS_TOP_STEERED,
	RFS_TOP_TO_DESIRED,
	RFS_TOP_HELD,
	RFS_TOP_SWITCHES,
	RFS_TOP_DEQUEUED,
	RFS_TOP_DROPS,		/* enqueue_drops: a target's ring was full */
	RFS_TOP_RECV_LOCAL,
	RFS_TOP_RECV_REMOTE,
	/* the kernel's schedstat of the CPU's cpumap kthread (run_delay,
	 * pcount), not the datapath's: CPU rows and the total only */
	RFS_TOP_KTHREAD_WAIT_NS,
	RFS_TOP_KTHREAD_RUNS,
	RFS_TOP_NR_CTRS
};

#define rfs_top_ctr_is_kthread(k)	((k) >= RFS_TOP_KTHREAD_WAIT_NS)

enum rfs_top_kind { RFS_TOP_CPU, RFS_TOP_TOTAL, RFS_TOP_IFACE };

#define RFS_TOP_NO_BACKLOG	(-1)

/* A CPU's, the total's or an interface's counters in one sample, and
 * their rates against its row (same kind and name) in the one before. */
struct rfs_top_row {
	enum rfs_top_kind kind;
	char name[16];		/* the CPU number, "all" or the interface */
	__u64 ctr[RFS_TOP_NR_CTRS];
	long long backlog;	/* a gauge: frames in the CPU's ring now */
	/* rfsd gave both kthread counters: else their 0 is no count */
	bool has_kthread;
	/* false: no earlier row, or no time passed: rates 0, the rest NaN */
	bool valid;
	bool reset;		/* a counter went back (rfs_top_delta()) */
	bool kthread_valid;	/* rfs_top_rate_row() says when */
	double per_s[RFS_TOP_NR_CTRS];
	double to_desired_pct;	/* of steered */
	double locality_pct;	/* recv_local of all recvs */
	double kwait_us;	/* the kthread's wait for its CPU per run */
};

struct rfs_top_snap {
	double t;		/* when it was taken, seconds (monotonic) */
	size_t n, n_cpus, n_ifaces;	/* rows: the CPUs, total, interfaces */
	struct rfs_top_row *rows;
	char version[32];	/* rfsd's */
};

/* wait_ns / runs in microseconds, or NaN when runs is 0. */
double rfs_top_kwait_us(__u64 wait_ns, __u64 runs);
/* kwait_us as a cell of at most 6 characters: "-" for NaN, one decimal
 * below 1000, none up to 999999, ">=1s" above. */
void rfs_top_kwait_text(char *buf, size_t len, double us);
/* The rates of cur's rows against prev's (NULL: the first sample). */
void rfs_top_rates(const struct rfs_top_snap *prev, struct rfs_top_snap *cur);

#endif /* RFSCTL_H */
