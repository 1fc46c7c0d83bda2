/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Control requests: parse one line, check its arguments, run it against
 * the datapath and build the reply object of docs/protocol.md.
 */
#ifndef RFSD_COMMANDS_H
#define RFSD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "rfs_dp.h"

struct rfsd;
struct rfsd_client;

enum rfsd_cmd_rc {
	RFSD_CMD_REPLY,		/* *reply is the answer */
	RFSD_CMD_WAIT,		/* datapath busy: run the line again later */
	RFSD_CMD_STARTED,	/* the answer comes via rfsd_server_reply() */
};

/* line is NUL-terminated (len bytes before the NUL, no '\n'). */
enum rfsd_cmd_rc rfsd_cmd_run(struct rfsd *d, struct rfsd_client *c,
			      const char *line, size_t len,
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
int rfsd_arg_int(struct json_object *req, const char *key, bool required,
		 long long lo, long long hi, long long *out,
		 struct json_object **reply);
int rfsd_arg_cpus(struct json_object *req, const char *key, bool required,
		  struct rfs_cpuset *out, struct json_object **reply);
/* The attached interface called name, or NULL with a reply
 * "<what> <name>: not attached" (or "no such interface"). */
struct rfs_if *rfsd_find_if(struct rfsd *d, const char *what, const char *name,
			    struct json_object **reply);

/* The interface object of the status result. */
struct json_object *rfsd_if_json(const struct rfs_if *ifc);

/* stats.c */
struct json_object *rfsd_cmd_stats(struct rfsd *d, struct json_object *req);
enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd *d, struct rfsd_client *c,
				struct json_object *req,
				struct json_object **reply);
/* The sampler's eventfd fired: reply to its client. */
void rfsd_flows_done(struct rfsd *d);
/* A client left: don't answer it. */
void rfsd_flows_client_gone(struct rfsd *d, struct rfsd_client *c);
/* Shutdown: wait for the sampler, drop its result. */
void rfsd_flows_cancel(struct rfsd *d);

#endif /* RFSD_COMMANDS_H */
