/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command table for the request fuzzers: rfsd's commands and arguments
 * from the one list both take (RFSD_CMDS() in commands.h), with handlers
 * that touch no datapath but check what they are handed; and the check
 * every reply must pass.
 */
#ifndef RFS_FUZZ_CMDS_H
#define RFS_FUZZ_CMDS_H

#include <errno.h>
#include <net/if.h>

#include "fuzz.h"
#include "commands.h"

/* rfsd's handlers are handed checked values: read each the way they do. */
static struct json_object *run_any(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   const struct rfsd_req *r)
{
	RFS_FUZZ_CHECK(r->cmd && (!(r->cmd->required & RFSD_ARG(IFACE)) ||
				  (r->iface && strlen(r->iface) < IF_NAMESIZE)),
		       "unchecked iface");
	RFS_FUZZ_CHECK(r->rx_cpu < RFS_MAX_CPUS && r->limit >= 1,
		       "unchecked range");
	return rfsd_reply_ok(json_object_new_object());
}

static enum rfsd_cmd_rc start_any(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  const struct rfsd_req *r,
				  struct json_object **reply)
{
	*reply = run_any(x, c, r);
	return RFSD_CMD_REPLY;
}

/* A handler with a bug: the reply is left out. */
static struct json_object *run_none(struct rfsd_cmd_ctx *x,
				    struct rfsd_client *c,
				    const struct rfsd_req *r)
{
	return NULL;
}

/* flows starts a job in fuzz_control, as the sampler does */
#ifndef FUZZ_FLOWS_START
#define FUZZ_FLOWS_START start_any
#endif

/* rfsd's commands and arguments (commands.h), with these handlers */
#define RUN(n)		run_any, NULL
#define START(n)	NULL, FUZZ_FLOWS_START
static const struct rfsd_cmd cmds[] = {
	RFSD_CMDS(RFSD_CMD_ROW)
	{ "none", 0, 0, run_none, NULL, false },
	{ NULL },
};
#undef RUN
#undef START

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
