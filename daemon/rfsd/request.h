/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One control request (docs/protocol.md), from its line to the handler of
 * its command: parse the JSON, refuse what is malformed, look the command
 * up in a table, refuse arguments it does not take, call it.  Plus the
 * reply objects and the typed argument getters the handlers use.
 *
 * Nothing here touches the datapath or the client table: the handlers get
 * their context and the client as they are (both opaque here), so the
 * fuzz target tests/fuzz/fuzz_request.c runs this file with a table of its
 * own.
 */
#ifndef RFSD_REQUEST_H
#define RFSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "cpulist.h"

struct rfsd_cmd_ctx;	/* what the handlers work on (commands.h) */
struct rfsd_client;	/* who asked (server.c) */

enum rfsd_cmd_rc {
	RFSD_CMD_REPLY,		/* *reply is the answer */
	RFSD_CMD_WAIT,		/* not now: run the line again later */
	RFSD_CMD_STARTED,	/* the answer comes via rfsd_server_reply() */
};

struct rfsd_cmd {
	const char *name;
	/* NULL-terminated: the arguments it takes besides "cmd" */
	const char *const *args;
	/* either, taking the request and returning the reply */
	struct json_object *(*run)(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   struct json_object *req);
	enum rfsd_cmd_rc (*start)(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  struct json_object *req,
				  struct json_object **reply);
	/* it changes something (attach, detach, set): only for peers that
	 * may change (peercred.h); the rest only read */
	bool changes;
};

/*
 * Serve line (len bytes and a NUL after them, no '\n') with the command of
 * cmds (ended by a NULL name) that it names.  A handler that returns no
 * reply gets "<cmd>: internal error".
 */
enum rfsd_cmd_rc rfsd_request_run(const struct rfsd_cmd *cmds,
				  struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				  const char *line, size_t len,
				  struct json_object **reply);

/*
 * The same for a peer that may only read, when deny is not NULL: a
 * command that changes something is refused before it runs, with
 * "can't <cmd> '<iface>': permission denied: <deny>".
 */
enum rfsd_cmd_rc rfsd_request_run_as(const struct rfsd_cmd *cmds,
				     struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c, const char *deny,
				     const char *line, size_t len,
				     struct json_object **reply);

/* The request object of line, or NULL with a "bad request: ..." reply:
 * not one JSON object, or a key in it twice. */
struct json_object *rfsd_request_parse(const char *line, size_t len,
				       struct json_object **reply);

/* {"ok": true, "result": result} (takes result) */
struct json_object *rfsd_reply_ok(struct json_object *result);
/* {"ok": false, "error": msg, "errno": |e|} */
struct json_object *rfsd_reply_err(int e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A datapath call failed with ret and err: reply with err (or, should it
 * be empty, "<what>: <strerror>"). */
struct json_object *rfsd_reply_dp_err(int ret, const char *err,
				      const char *what);

/* Argument access: 0, 1 if absent (and !required), or -EINVAL with a
 * "bad request: ..." reply in *reply.  JSON null counts as absent. */
int rfsd_arg_str(struct json_object *req, const char *key, bool required,
		 const char **out, struct json_object **reply);
int rfsd_arg_bool(struct json_object *req, const char *key, bool required,
		  bool *out, struct json_object **reply);
int rfsd_arg_int(struct json_object *req, const char *key, bool required,
		 long long lo, long long hi, long long *out,
		 struct json_object **reply);
int rfsd_arg_cpus(struct json_object *req, const char *key, bool required,
		  struct rfs_cpuset *out, struct json_object **reply);
/* "iface": a string of 1..IF_NAMESIZE - 1 characters. */
int rfsd_arg_iface(struct json_object *req, bool required, const char **out,
		   struct json_object **reply);

#endif /* RFSD_REQUEST_H */
