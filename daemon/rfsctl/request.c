// SPDX-License-Identifier: GPL-2.0
/*
 * Requests to rfsd: build them with json-c, send each on a connection of
 * its own and hand the result to the command.  Whatever fails here (no
 * daemon, a refused request) is a runtime error: exit 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "log.h"
#include "rfsctl.h"

struct json_object *rfs_req_new(const char *cmd)
{
	struct json_object *req = json_object_new_object();

	rfs_req_add_str(req, "cmd", cmd);
	return req;
}

void rfs_req_add_str(struct json_object *req, const char *key,
		     const char *val)
{
	json_object_object_add(req, key, json_object_new_string(val));
}

void rfs_req_add_int(struct json_object *req, const char *key, int val)
{
	json_object_object_add(req, key, json_object_new_int(val));
}

void rfs_req_add_cpus(struct json_object *req, const char *key,
		      const struct rfs_cpuset *cpus)
{
	struct json_object *arr = json_object_new_array();
	unsigned int cpu;

	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(cpus, cpu))
			json_object_array_add(arr, json_object_new_int(cpu));
	json_object_object_add(req, key, arr);
}

/* -v: show the lines exchanged with rfsd. */
static void trace(const char *dir, const char *line, void *arg)
{
	pr_debug("%s %s\n", !strcmp(dir, "send") ? ">" : "<", line);
}

static int call(const struct rfsctl_cfg *g, struct json_object *req,
		int extra_ms, struct json_object **reply,
		struct json_object **result, char *err, size_t len)
{
	struct rfs_ctl *ctl;
	int ret;

	*reply = NULL;
	*result = NULL;
	ret = rfs_ctl_connect(&ctl, g->socket, err, len);
	if (ret)
		goto out;
	rfs_ctl_set_trace(ctl, trace, NULL);
	rfs_ctl_set_timeout(ctl, RFS_CTL_TIMEOUT_MS + extra_ms);
	ret = rfs_ctl_request(ctl, req, reply, err, len);
	rfs_ctl_close(ctl);
	if (!ret)
		ret = rfs_ctl_result(*reply, result, err, len);
	if (ret) {
		json_object_put(*reply);
		*reply = NULL;
		*result = NULL;
	}
out:
	json_object_put(req);
	return ret;
}

int rfs_call(const struct rfsctl_cfg *g, struct json_object *req,
	     int extra_ms, struct json_object **reply,
	     struct json_object **result)
{
	char err[RFS_CTL_ERR_LEN];

	if (!call(g, req, extra_ms, reply, result, err, sizeof(err)))
		return EXIT_SUCCESS;
	/* the daemon's message names object and cause: pass it through */
	p_err("%s", err);
	return EXIT_FAILURE;
}

int rfs_call_quiet(const struct rfsctl_cfg *g, struct json_object *req,
		   struct json_object **reply, struct json_object **result,
		   char *err, size_t len)
{
	return call(g, req, 0, reply, result, err, len);
}

int rfs_expect(struct json_object *result, enum json_type type,
	       const char *what)
{
	if (json_object_is_type(result, type))
		return EXIT_SUCCESS;
	p_err("unexpected reply from rfsd: %s is not %s %s", what,
	      type == json_type_array || type == json_type_object ?
	      "an" : "a", json_type_to_name(type));
	return EXIT_FAILURE;
}
