/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows command and its sampler.  flows samples for up to 10 s per
 * interface, and rfs_if_sample_flows() blocks for that long; the event
 * loop must not.  So a thread does it, and while it runs the datapath is
 * lent to it: busy is set, and every other user of the datapath (requests
 * that need it, link events, the CPU refresh, SIGHUP) waits.  The handle
 * is handed over, never shared.  The thread writes efd when done; rfsd.c
 * then calls rfsd_sampler_done() and hands the reply to the server.
 */
#ifndef RFSD_FLOWS_H
#define RFSD_FLOWS_H

#include <stdbool.h>

#include <json.h>

#include "request.h"

struct rfsd_client;
struct rfsd_cmd_ctx;
struct rfsd_flows_job;

struct rfsd_sampler {
	struct rfsd_flows_job *job;	/* the one running, or NULL */
	bool busy;			/* job != NULL: the datapath is lent */
	int efd;			/* eventfd: the thread is done */
};

/* Start sampling (RFSD_CMD_STARTED), or reply at once (no interface, a
 * bad request). */
enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				struct json_object *req,
				struct json_object **reply);
/* efd fired: join the thread.  true if a job finished: *c is the client
 * to answer with *reply (NULL, and no reply, if it left). */
bool rfsd_sampler_done(struct rfsd_sampler *s, struct rfsd_client **c,
		       struct json_object **reply);
/* A client left: its job's result goes nowhere. */
void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c);
/* Shutdown: wait for the thread, drop its result. */
void rfsd_sampler_cancel(struct rfsd_sampler *s);

#endif /* RFSD_FLOWS_H */
