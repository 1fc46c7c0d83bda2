/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's control commands (docs/protocol.md) and one request's way to
 * them (request.c).  The parser process makes every check that needs no
 * datapath (one JSON object, no key twice, a known command, only its
 * arguments, each of its type and range) and hands rfsd a struct
 * rfsd_preq.  rfsd checks it again, with the same code, and hands the
 * handler a struct rfsd_req of checked values: rfsd never parses a byte
 * a peer sent.  A handler (commands.c; stats.c, flows.c, explain.c)
 * builds the reply and never calls back into the server or the loop.
 */
#ifndef RFSD_COMMANDS_H
#define RFSD_COMMANDS_H

#include <json.h>

#include "ctl_client.h"
#include "rfs_dp.h"

struct rfsd_client;	/* who asked (server.c) */

struct rfsd_sampler {
	struct rfsd_flows_job *jobs;	/* running, in no order */
	int tfd;			/* timerfd: the soonest job's end */
};

struct rfsd_cmd_ctx {
	struct rfs_dp *dp;
	struct rfsd_ifaces *ifaces;	/* configured interfaces (rfsd.h) */
	struct rfsd_sampler *sampler;
	struct rfsd_kscheds *ksched;	/* cpumap kthreads (rfsd.h) */
	const struct rfsd_child *parser;	/* the request parser (server.h) */
	struct rfsd_metrics *const *metrics;	/* rfsd's; *metrics NULL: not serving */
};

enum rfsd_cmd_rc {
	RFSD_CMD_REPLY,		/* *reply is the answer */
	RFSD_CMD_WAIT,		/* not now: run the request again later */
	RFSD_CMD_STARTED,	/* the answer comes via rfsd_server_reply() */
};

/*
 * Every argument a command may take, with the one type, range and default
 * it has for all of them: X(NAME, name, type, lo, hi, default), kept in
 * struct rfsd_req's member name.
 */
enum rfsd_atype {
	RFSD_T_STR, RFSD_T_IFACE, RFSD_T_INT, RFSD_T_BOOL, RFSD_T_CPUS
};
#define RFSD_ARGS(X)							\
	X(IFACE, iface, RFSD_T_IFACE, 0, 0, 0)				\
	X(CPUS, cpus, RFSD_T_CPUS, 0, 0, 0)				\
	/* 0 would mean the default to rfs_if_attach() */		\
	X(FLOW_CNT, flow_cnt, RFSD_T_INT, 1, UINT32_MAX, 0)		\
	X(MODE, mode, RFSD_T_STR, 0, 0, 0)				\
	X(ALLOW_UNORDERED, allow_unordered, RFSD_T_BOOL, 0, 1, 0)	\
	X(KEY, key, RFSD_T_STR, 0, 0, 0)				\
	X(VALUE, value, RFSD_T_INT, 0, UINT32_MAX, 0)			\
	X(LIMIT, limit, RFSD_T_INT, 1, INT32_MAX, 20)			\
	X(INTERVAL_MS, interval_ms, RFSD_T_INT, 1, 10000, 500)		\
	X(SRC, src, RFSD_T_STR, 0, 0, 0)				\
	X(DST, dst, RFSD_T_STR, 0, 0, 0)				\
	X(SPORT, sport, RFSD_T_INT, 0, 65535, -1)			\
	X(DPORT, dport, RFSD_T_INT, 0, 65535, -1)			\
	X(PROTO, proto, RFSD_T_STR, 0, 0, 0)				\
	X(RX_CPU, rx_cpu, RFSD_T_INT, 0, RFS_MAX_CPUS - 1, -1)
#define RFSD_ARG_NO(N, ...)	RFSD_ARG_##N,
enum rfsd_argno { RFSD_ARGS(RFSD_ARG_NO) RFSD_NARGS };
#define RFSD_ARG(a)	(1u << RFSD_ARG_##a)

/* A request as its handler reads it, every value checked.  An argument
 * not given is NULL, an empty set, or its default. */
struct rfsd_req {
	const struct rfsd_cmd *cmd;
	__u32 has;			/* RFSD_ARG() of each one given */
	const char *iface, *mode, *key, *src, *dst, *proto;
	struct rfs_cpuset cpus;
	long long flow_cnt, value, limit, interval_ms, sport, dport, rx_cpu;
	bool allow_unordered;
};

struct rfsd_cmd {
	const char *name;
	__u32 args, required;		/* RFSD_ARG()s, besides "cmd" */
	/* either */
	struct json_object *(*run)(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   const struct rfsd_req *r);
	enum rfsd_cmd_rc (*start)(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  const struct rfsd_req *r,
				  struct json_object **reply);
	bool changes;	/* attach, detach, set: for admins alone (server.h) */
};

/*
 * The commands and what each takes: X(name, RUN or START, args, required,
 * changes), the handler rfsd_cmd_<name>.  rfsd's table (commands.c) and
 * the fuzzers' (tests/fuzz/fuzz_cmds.h) are both made from this list.
 */
#define RFSD_CMDS(X)							\
	X(version, RUN, 0, 0, false)					\
	X(status, RUN, 0, 0, false)					\
	X(attach, RUN, RFSD_ARG(IFACE) | RFSD_ARG(CPUS) |		\
	  RFSD_ARG(FLOW_CNT) | RFSD_ARG(MODE) | RFSD_ARG(ALLOW_UNORDERED), \
	  RFSD_ARG(IFACE), true)					\
	X(detach, RUN, RFSD_ARG(IFACE), RFSD_ARG(IFACE), true)		\
	X(stats, RUN, RFSD_ARG(IFACE), 0, false)			\
	X(flows, START, RFSD_ARG(IFACE) | RFSD_ARG(LIMIT) |		\
	  RFSD_ARG(INTERVAL_MS), 0, false)				\
	X(set, RUN, RFSD_ARG(KEY) | RFSD_ARG(VALUE) | RFSD_ARG(IFACE) |	\
	  RFSD_ARG(CPUS), RFSD_ARG(KEY), true)				\
	X(explain, RUN, RFSD_ARG(IFACE) | RFSD_ARG(SRC) | RFSD_ARG(DST) | \
	  RFSD_ARG(SPORT) | RFSD_ARG(DPORT) | RFSD_ARG(PROTO) |		\
	  RFSD_ARG(RX_CPU), RFSD_ARG(IFACE) | RFSD_ARG(SRC) | RFSD_ARG(DST), \
	  false)
/* A table row of X(): RUN(n) and START(n) name its handlers. */
#define RFSD_CMD_ROW(n, how, args, required, changes)			\
	{ #n, args, required, how(n), changes },

extern const struct rfsd_cmd rfsd_cmds[];	/* NULL-terminated */

/* ---- the parsed request, as the parser process hands it over ---- */

#define RFSD_PREQ_MSG	512
/* each string is shorter than its JSON literal; one CPU set */
#define RFSD_PREQ_DATA	(RFS_CTL_REQUEST_MAX + sizeof(struct rfs_cpuset))

struct rfsd_parg {
	__u32 off, len;		/* in data: a string (NUL after) or CPU set */
	__s64 i;		/* an integer (INT64_MAX for any above), bool */
};

struct rfsd_preq {
	__s32 err;		/* not 0: the errno of a refusal, why in msg */
	__u16 cmd;		/* index into the table */
	__u32 has;		/* RFSD_ARG() of each argument in arg[] */
	struct rfsd_parg arg[RFSD_NARGS];
	char msg[RFSD_PREQ_MSG];
	__u32 data_len;
	char data[RFSD_PREQ_DATA];
};

static inline size_t rfsd_preq_size(const struct rfsd_preq *p)
{
	return offsetof(struct rfsd_preq, data) + p->data_len;
}

/* The parser's half: line (len bytes, a NUL after them, no '\n') of a
 * peer that may only read if reader, into *p. */
void rfsd_request_parse(const struct rfsd_cmd *cmds, bool reader,
			const char *line, size_t len, struct rfsd_preq *p);
/* The parser process's main (server.h): c->arg is the table. */
void rfsd_request_serve(struct rfsd_child *c);
/* rfsd's half: check p (len bytes, as received) and run its command.
 * deny, for a peer that may only read, is why a change is refused. */
enum rfsd_cmd_rc rfsd_request_exec(const struct rfsd_cmd *cmds,
				   struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c, const char *deny,
				   const struct rfsd_preq *p, size_t len,
				   struct json_object **reply);
/* Both halves in one process: tests, fuzzing, and the requests rfsd
 * builds itself (metrics), as a peer that may change (deny NULL). */
enum rfsd_cmd_rc rfsd_request_run_as(const struct rfsd_cmd *cmds,
				     struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c, const char *deny,
				     const char *line, size_t len,
				     struct json_object **reply);

/* {"ok": true, "result": result}; {"ok": false, "error": msg, "errno":
 * |e|}; for a datapath call's failure, err (if empty, "<what>: <strerror>",
 * what from fmt) */
struct json_object *rfsd_reply_ok(struct json_object *result);
struct json_object *rfsd_reply_err(int e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct json_object *rfsd_reply_dp_err(int ret, const char *err,
				      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- the handlers' helpers ---- */

/* The replies are long lists of members: json-c's constructors, short.
 * A NULL string is null. */
#define rfsd_add	json_object_object_add
#define rfsd_jint	json_object_new_int64
#define rfsd_jbool	json_object_new_boolean
static inline struct json_object *rfsd_jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}
/* "0x0000abcd" */
struct json_object *rfsd_jhex32(__u32 v);
/* null for no CPU (RFS_NO_CPU) */
struct json_object *rfsd_jcpu(__u32 cpu);
/* [0, 2, 3] */
struct json_object *rfsd_cpus_json(const struct rfs_cpuset *set);

/* The attached interface called name, or NULL with a reply "<what>
 * <name>: not attached" (or "no such interface"). */
static inline struct rfs_if *rfsd_find_if(struct rfsd_cmd_ctx *x,
					  const char *what, const char *name,
					  struct json_object **reply)
{
	struct rfs_if *ifc = rfs_dp_if_find(x->dp, name);
	bool none = !ifc && !if_nametoindex(name);

	if (!ifc)
		*reply = rfsd_reply_err(none ? ENODEV : ENOENT, "%s %s: %s",
					what, name, none ? "no such interface" :
					"not attached");
	return ifc;
}

struct json_object *rfsd_cmd_stats(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   const struct rfsd_req *r);
struct json_object *rfsd_cmd_explain(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     const struct rfsd_req *r);

/* On rfsd's timer: warn of each CPU still leaving an interface after
 * bound_s seconds (0: never), naming the flows that keep it. */
void rfsd_leaving_tick(struct rfs_dp *dp, __u32 bound_s);

/*
 * flows counts frames per flow for up to 10 s, and nothing waits for
 * that: a request starts counting (RFSD_CMD_STARTED), or waits
 * (RFSD_CMD_WAIT) for another count on its interfaces; the sampler's
 * timerfd fires at the soonest end and rfsd.c calls rfsd_sampler_done():
 * true if a job was over, *c to answer with *reply (NULL if it left).
 * Call it until false, which re-arms the timer.
 */
enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				const struct rfsd_req *r,
				struct json_object **reply);
bool rfsd_sampler_done(struct rfsd_sampler *s, struct rfs_dp *dp,
		       struct rfsd_client **c, struct json_object **reply);
/* A client that started a job left: its result goes nowhere. */
void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c);
/* Shutdown: stop every count, drop the jobs. */
void rfsd_sampler_cancel(struct rfsd_sampler *s, struct rfs_dp *dp);

#endif /* RFSD_COMMANDS_H */
