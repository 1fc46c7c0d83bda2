/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command table for the request fuzzers: rfsd's commands and arguments,
 * with handlers that read every argument the way commands.c, stats.c and
 * flows.c do but touch no datapath; and the check every reply must pass.
 */
#ifndef RFS_FUZZ_CMDS_H
#define RFS_FUZZ_CMDS_H

#include <errno.h>

#include "fuzz.h"
#include "commands.h"

/* What rfsd's handlers ask of a request (commands.c, stats.c, flows.c). */
static struct json_object *run_any(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   struct json_object *req)
{
	struct json_object *reply = NULL;
	struct rfs_cpuset cpus;
	const char *str;
	long long n;

	if (rfsd_arg_iface(req, false, &str, &reply) < 0 ||
	    rfsd_arg_str(req, "mode", false, &str, &reply) < 0 ||
	    rfsd_arg_str(req, "key", false, &str, &reply) < 0 ||
	    rfsd_arg_cpus(req, "cpus", false, &cpus, &reply) < 0 ||
	    rfsd_arg_int(req, "flow_cnt", false, 1, UINT32_MAX, &n, &reply) < 0 ||
	    rfsd_arg_int(req, "value", false, 0, UINT32_MAX, &n, &reply) < 0 ||
	    rfsd_arg_int(req, "limit", false, 1, INT32_MAX, &n, &reply) < 0 ||
	    rfsd_arg_int(req, "interval_ms", false, 1, 10000, &n, &reply) < 0)
		return reply;
	return rfsd_reply_ok(json_object_new_object());
}

static enum rfsd_cmd_rc start_any(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  struct json_object *req,
				  struct json_object **reply)
{
	*reply = run_any(x, c, req);
	return RFSD_CMD_REPLY;
}

/* A handler with a bug, as defect 6 needed: the reply is left out. */
static struct json_object *run_none(struct rfsd_cmd_ctx *x,
				    struct rfsd_client *c,
				    struct json_object *req)
{
	return NULL;
}

static const char *const no_args[] = { NULL };
static const char *const attach_args[] = { "iface", "cpus", "flow_cnt", "mode", NULL };
static const char *const iface_args[] = { "iface", NULL };
static const char *const flows_args[] = { "iface", "limit", "interval_ms", NULL };
static const char *const set_args[] = { "key", "value", "iface", "cpus", NULL };

/* flows starts a job in fuzz_control, as the sampler does */
#ifndef FUZZ_FLOWS_START
#define FUZZ_FLOWS_START start_any
#endif

static const struct rfsd_cmd cmds[] = {
	{ "version", no_args, run_any, NULL, false },
	{ "status", no_args, run_any, NULL, false },
	{ "attach", attach_args, run_any, NULL, true },
	{ "detach", iface_args, run_any, NULL, true },
	{ "stats", iface_args, run_any, NULL, false },
	{ "flows", flows_args, NULL, FUZZ_FLOWS_START, false },
	{ "set", set_args, run_any, NULL, true },
	{ "none", no_args, run_none, NULL, false },
	{ NULL },
};

static inline void check_reply(struct json_object *r, const char *line)
{
	struct json_object *ok, *v;

	RFS_FUZZ_CHECK(r && json_object_is_type(r, json_type_object),
		       "no reply object for '%s'", line);
	RFS_FUZZ_CHECK(json_object_object_get_ex(r, "ok", &ok) &&
		       json_object_is_type(ok, json_type_boolean), "no ok");
	if (json_object_get_boolean(ok)) {
		RFS_FUZZ_CHECK(json_object_object_get_ex(r, "result", &v) && v,
			       "ok without result");
	} else {
		RFS_FUZZ_CHECK(json_object_object_get_ex(r, "error", &v) &&
			       json_object_is_type(v, json_type_string) &&
			       json_object_get_string_len(v) > 0, "no error");
		RFS_FUZZ_CHECK(json_object_object_get_ex(r, "errno", &v) &&
			       json_object_get_int(v) > 0, "no errno");
	}
	RFS_FUZZ_CHECK(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN),
		       "reply does not serialize");
}

#endif /* RFS_FUZZ_CMDS_H */
