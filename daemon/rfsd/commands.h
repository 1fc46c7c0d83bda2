/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's control commands: their table, run by request.c on each line,
 * and the helpers the handlers in commands.c and stats.c share.  The
 * replies and argument getters are request.h's.
 */
#ifndef RFSD_COMMANDS_H
#define RFSD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "request.h"
#include "rfs_dp.h"

struct rfsd;
struct rfsd_client;

/* rfsd_request_run() with rfsd's commands: line is NUL-terminated (len
 * bytes before the NUL, no '\n'). */
enum rfsd_cmd_rc rfsd_cmd_run(struct rfsd *d, struct rfsd_client *c,
			      const char *line, size_t len,
			      struct json_object **reply);

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
