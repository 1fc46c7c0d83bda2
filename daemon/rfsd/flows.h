/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows command and its sampler.  flows counts frames per flow for up
 * to 10 s; nothing waits for that.  A request starts counting on its
 * interfaces and is answered later: the sampler's timerfd, in rfsd's event
 * loop, fires at the end of the soonest window, rfsd.c calls
 * rfsd_sampler_done(), which stops the count, reads it and hands the reply
 * to the server.  Meanwhile every other request, link event and timer runs
 * as usual; samples on different interfaces run side by side, a second
 * one on an interface being sampled waits for the first (RFSD_CMD_WAIT).
 * An interface detached or gone meanwhile is left out of the answer.
 */
#ifndef RFSD_FLOWS_H
#define RFSD_FLOWS_H

#include <stdbool.h>

#include <json.h>

#include "request.h"
#include "rfs_dp.h"

struct rfsd_client;
struct rfsd_cmd_ctx;
struct rfsd_flows_job;

struct rfsd_sampler {
	struct rfsd_flows_job *jobs;	/* running, in no order */
	int tfd;			/* timerfd: the soonest job's end */
};

/* Start sampling (RFSD_CMD_STARTED), wait for a sample running on the
 * same interface (RFSD_CMD_WAIT), or reply at once (no interface, a bad
 * request). */
enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				struct json_object *req,
				struct json_object **reply);
/* tfd fired: finish one job whose window is over.  true if one did: *c
 * is the client to answer with *reply (NULL, and no reply, if it left);
 * call again until false, which re-arms tfd for the next. */
bool rfsd_sampler_done(struct rfsd_sampler *s, struct rfs_dp *dp,
		       struct rfsd_client **c, struct json_object **reply);
/* A client left: its job's result goes nowhere. */
void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c);
/* Shutdown: stop every count, drop the jobs. */
void rfsd_sampler_cancel(struct rfsd_sampler *s, struct rfs_dp *dp);

#endif /* RFSD_FLOWS_H */
