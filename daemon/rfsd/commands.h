/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's control commands: their table (commands.c), which server.c is
 * handed and request.c runs, and what their handlers share.  A handler
 * gets the command context below and the client that asked, checks its
 * arguments (request.h's getters), calls the datapath library and builds
 * the reply; it never calls back into the server or the event loop.
 *
 *	commands.c	the table; version, status, attach, detach, set
 *	stats.c		stats
 *	flows.c		flows (sampled beside the rest; see flows.h)
 *	explain.c	explain (one flow, through rfs_pick_cpu)
 *	cmd_iface.c	the interface a request names, and its JSON
 *	leaving.c	its CPUs still leaving, for status and set cpus
 */
#ifndef RFSD_COMMANDS_H
#define RFSD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include <json.h>

#include "request.h"
#include "rfs_dp.h"

struct rfsd_client;
struct rfsd_ifaces;
struct rfsd_kscheds;
struct rfsd_sampler;

/* What every handler works on. */
struct rfsd_cmd_ctx {
	struct rfs_dp *dp;
	struct rfsd_ifaces *ifaces;	/* configured interfaces (ifaces.h) */
	struct rfsd_sampler *sampler;	/* the flows command's (flows.h) */
	struct rfsd_kscheds *ksched;	/* cpumap kthreads (ksched.h) */
};

/* NULL-terminated */
extern const struct rfsd_cmd rfsd_cmds[];

/* A client that started a command still running (flows) left. */
void rfsd_cmd_client_gone(struct rfsd_cmd_ctx *x, struct rfsd_client *c);

/* cmd_iface.c: the attached interface called name, or NULL with a reply
 * "<what> <name>: not attached" (or "no such interface"). */
struct rfs_if *rfsd_find_if(struct rfsd_cmd_ctx *x, const char *what,
			    const char *name, struct json_object **reply);
/* The interface object of status, attach and set replies. */
struct json_object *rfsd_if_json(const struct rfs_if *ifc);

/* stats.c */
struct json_object *rfsd_cmd_stats(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   struct json_object *req);

/* explain.c */
struct json_object *rfsd_cmd_explain(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req);

#endif /* RFSD_COMMANDS_H */
