// SPDX-License-Identifier: GPL-2.0
/*
 * rfsd's half of a control request (commands.h): check the struct the
 * parser process made of it (parser.c), rebuild the request object from
 * its typed values, check the peer's role, call the handler; and the
 * replies and argument getters the handlers use.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

struct json_object *rfsd_reply_ok(struct json_object *result)
{
	struct json_object *r = json_object_new_object();

	rfsd_add(r, "ok", rfsd_jbool(1));
	rfsd_add(r, "result", result);
	return r;
}

struct json_object *rfsd_reply_err(int e, const char *fmt, ...)
{
	struct json_object *r = json_object_new_object();
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rfsd_add(r, "ok", rfsd_jbool(0));
	rfsd_add(r, "error", rfsd_jstr(msg));
	rfsd_add(r, "errno", rfsd_jint(e < 0 ? -e : e));
	return r;
}

struct json_object *rfsd_reply_dp_err(int ret, const char *err,
				      const char *what)
{
	if (!ret)
		ret = -EIO;
	if (err && *err)
		return rfsd_reply_err(ret, "%s", err);
	return rfsd_reply_err(ret, "%s: %s", what, strerror(ret < 0 ? -ret : ret));
}

/* The value of key if it has type t: 0, 1 if absent (and !required), or
 * -EINVAL with a reply saying it must be what. */
static int arg_get(struct json_object *req, const char *key, bool required,
		   enum json_type t, const char *what, struct json_object **v,
		   struct json_object **reply)
{
	if (!json_object_object_get_ex(req, key, v) || !*v) {
		if (!required)
			return 1;
		*reply = rfsd_reply_err(EINVAL, "bad request: missing '%s'", key);
		return -EINVAL;
	}
	if (json_object_is_type(*v, t))
		return 0;
	*reply = rfsd_reply_err(EINVAL, "bad request: '%s' must be %s", key, what);
	return -EINVAL;
}

int rfsd_arg_str(struct json_object *req, const char *key, bool required,
		 const char **out, struct json_object **reply)
{
	struct json_object *v;
	int r = arg_get(req, key, required, json_type_string, "a string", &v,
			reply);

	if (!r)
		*out = json_object_get_string(v);
	return r;
}

int rfsd_arg_bool(struct json_object *req, const char *key, bool required,
		  bool *out, struct json_object **reply)
{
	struct json_object *v;
	int r = arg_get(req, key, required, json_type_boolean,
			"true or false", &v, reply);

	if (!r)
		*out = json_object_get_boolean(v);
	return r;
}

int rfsd_arg_int(struct json_object *req, const char *key, bool required,
		 long long lo, long long hi, long long *out,
		 struct json_object **reply)
{
	struct json_object *v;
	int r = arg_get(req, key, required, json_type_int, "an integer", &v,
			reply);
	int64_t n;

	if (r)
		return r;
	/* json-c keeps integers above INT64_MAX as uint64: clamp them */
	n = json_object_get_int64(v);
	if (n == INT64_MAX || n < lo || n > hi) {
		*reply = rfsd_reply_err(EINVAL,
					"bad request: '%s' must be %lld..%lld", key,
					lo, hi);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

int rfsd_arg_cpus(struct json_object *req, const char *key, bool required,
		  struct rfs_cpuset *out, struct json_object **reply)
{
	struct json_object *v;
	int r = arg_get(req, key, required, json_type_array,
			"an array of CPU numbers", &v, reply);
	size_t i, n;

	rfs_cpuset_zero(out);
	if (r)
		return r;
	n = json_object_array_length(v);
	if (!n) {
		*reply = rfsd_reply_err(EINVAL, "bad request: '%s' is empty", key);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		int64_t cpu;

		if (!e || !json_object_is_type(e, json_type_int) ||
		    (cpu = json_object_get_int64(e)) < 0 || cpu >= RFS_MAX_CPUS) {
			*reply = rfsd_reply_err(EINVAL,
						"bad request: '%s' entries must be integers 0..%d",
						key, RFS_MAX_CPUS - 1);
			return -EINVAL;
		}
		rfs_cpuset_add(out, (unsigned int)cpu);
	}
	return 0;
}

int rfsd_arg_iface(struct json_object *req, bool required, const char **out,
		   struct json_object **reply)
{
	int r = rfsd_arg_str(req, "iface", required, out, reply);

	if (r)
		return r;
	if (!**out || strlen(*out) >= IF_NAMESIZE) {
		*reply = rfsd_reply_err(EINVAL,
					"bad request: 'iface' must be an interface name (1..%d characters)",
					IF_NAMESIZE - 1);
		return -EINVAL;
	}
	return 0;
}

/* p's request as an object, or NULL with a reply: a p that breaks its
 * layout comes from a parser that is not ours any more. */
static struct json_object *decode(const struct rfsd_cmd *cmds,
				  const struct rfsd_preq *p, size_t len,
				  const struct rfsd_cmd **cmdp,
				  struct json_object **reply)
{
	size_t hdr = offsetof(struct rfsd_preq, data), ncmds, nargs, i;
	struct json_object *req, *v = NULL, *a;
	const struct rfsd_cmd *cmd;
	struct rfs_cpuset set;
	__u32 seen = 0;

	for (ncmds = 0; cmds[ncmds].name; ncmds++)
		;
	if (len < hdr || p->data_len > RFSD_PREQ_DATA ||
	    len != hdr + p->data_len)
		goto bad;
	if (p->err) {
		if (p->err < 0 || p->err > 4095 || !p->msg[0] ||
		    !memchr(p->msg, '\0', sizeof(p->msg)))
			goto bad;
		*reply = rfsd_reply_err(p->err, "%s", p->msg);
		return NULL;
	}
	if (p->cmd >= ncmds || p->nargs > RFSD_PREQ_ARGS)
		goto bad;
	cmd = *cmdp = &cmds[p->cmd];
	for (nargs = 0; cmd->args[nargs]; nargs++)
		;
	req = json_object_new_object();
	rfsd_add(req, "cmd", rfsd_jstr(cmd->name));
	for (i = 0; i < p->nargs; i++) {
		const struct rfsd_parg *g = &p->arg[i];
		bool span = g->off <= p->data_len &&
			    g->len <= p->data_len - g->off;

		if (g->key >= nargs || (seen & (1u << g->key)) ||
		    g->type >= RFSD_PV_MAX)
			goto bad_req;
		seen |= 1u << g->key;
		switch (g->type) {
		case RFSD_PV_NULL:
			v = NULL;
			break;
		case RFSD_PV_BOOL:
			v = json_object_new_boolean(!!g->i);
			break;
		case RFSD_PV_INT:
			v = json_object_new_int64(g->i);
			break;
		case RFSD_PV_DOUBLE:
			v = json_object_new_double(g->d);
			break;
		case RFSD_PV_STR:
			if (!span || g->off + g->len >= p->data_len ||
			    p->data[g->off + g->len])
				goto bad_req;
			v = json_object_new_string_len(p->data + g->off, g->len);
			break;
		case RFSD_PV_CPUS:
			if (!span || g->len != sizeof(set))
				goto bad_req;
			memcpy(&set, p->data + g->off, sizeof(set));
			v = rfsd_cpus_json(&set);
			break;
		case RFSD_PV_BADARR:
			/* [] or [null]: the getter says which is wrong */
			v = a = json_object_new_array();
			if (g->i)
				json_object_array_add(a, NULL);
			break;
		default:
			v = json_object_new_object();
		}
		rfsd_add(req, cmd->args[g->key], v);
	}
	return req;
bad_req:
	json_object_put(req);
bad:
	*reply = rfsd_reply_err(EPROTO, "request: the parser process broke its protocol");
	*cmdp = NULL;
	return NULL;
}

struct json_object *rfsd_cpus_json(const struct rfs_cpuset *set)
{
	struct json_object *a = json_object_new_array();
	unsigned int cpu;

	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(set, cpu))
			json_object_array_add(a, rfsd_jint(cpu));
	return a;
}

struct json_object *rfsd_jhex32(__u32 v)
{
	char s[16];

	snprintf(s, sizeof(s), "0x%08x", v);
	return rfsd_jstr(s);
}

struct json_object *rfsd_jcpu(__u32 cpu)
{
	return cpu >= RFS_MAX_CPUS ? NULL : rfsd_jint(cpu);
}

/* What a refused change was about: "attach 'eth1'", "set flow_cnt of
 * 'eth1'", "set sock_flow_entries", from whatever strings req holds. */
static struct json_object *refuse_change(const struct rfsd_cmd *cmd,
					 struct json_object *req,
					 const char *deny)
{
	struct json_object *v;
	const char *iface = NULL, *key = NULL;

	if (json_object_object_get_ex(req, "iface", &v) &&
	    json_object_is_type(v, json_type_string))
		iface = json_object_get_string(v);
	if (json_object_object_get_ex(req, "key", &v) &&
	    json_object_is_type(v, json_type_string))
		key = json_object_get_string(v);
	if (key && iface)
		return rfsd_reply_err(EACCES, "can't %s %.64s of '%.16s': permission denied: %s",
				      cmd->name, key, iface, deny);
	if (key || iface)
		return rfsd_reply_err(EACCES, key ? "can't %s %.64s: permission denied: %s" :
				      "can't %s '%.16s': permission denied: %s",
				      cmd->name, key ?: iface, deny);
	return rfsd_reply_err(EACCES, "can't %s: permission denied: %s",
			      cmd->name, deny);
}

static enum rfsd_cmd_rc run(const struct rfsd_cmd *cmd,
			    struct rfsd_cmd_ctx *x, struct rfsd_client *c,
			    struct json_object *req, struct json_object **reply)
{
	enum rfsd_cmd_rc rc = RFSD_CMD_REPLY;

	if (cmd->start)
		rc = cmd->start(x, c, req, reply);
	else
		*reply = cmd->run(x, c, req);
	json_object_put(req);
	if (rc == RFSD_CMD_REPLY && !*reply)
		*reply = rfsd_reply_err(EIO, "%s: internal error", cmd->name);
	return rc;
}

enum rfsd_cmd_rc rfsd_request_exec(const struct rfsd_cmd *cmds,
				   struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c, const char *deny,
				   const struct rfsd_preq *p, size_t len,
				   struct json_object **reply)
{
	const struct rfsd_cmd *cmd = NULL;
	struct json_object *req;

	*reply = NULL;
	req = decode(cmds, p, len, &cmd, reply);
	if (!req)
		return RFSD_CMD_REPLY;
	/* the parser's word on the role counts for nothing */
	if (cmd->changes && deny) {
		*reply = refuse_change(cmd, req, deny);
		json_object_put(req);
		return RFSD_CMD_REPLY;
	}
	return run(cmd, x, c, req, reply);
}

enum rfsd_cmd_rc rfsd_request_run_as(const struct rfsd_cmd *cmds,
				     struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c, const char *deny,
				     const char *line, size_t len,
				     struct json_object **reply)
{
	struct rfsd_preq *p = malloc(sizeof(*p));
	enum rfsd_cmd_rc rc;

	*reply = NULL;
	if (!p) {
		*reply = rfsd_reply_err(ENOMEM, "out of memory");
		return RFSD_CMD_REPLY;
	}
	rfsd_request_parse(cmds, deny != NULL, line, len, p);
	rc = rfsd_request_exec(cmds, x, c, deny, p, rfsd_preq_size(p), reply);
	free(p);
	return rc;
}

enum rfsd_cmd_rc rfsd_request_call(const struct rfsd_cmd *cmds,
				   struct rfsd_cmd_ctx *x,
				   struct json_object *req,
				   struct json_object **reply)
{
	const char *name = NULL;
	const struct rfsd_cmd *cmd;

	*reply = NULL;
	if (rfsd_arg_str(req, "cmd", true, &name, reply) < 0)
		return RFSD_CMD_REPLY;
	for (cmd = cmds; cmd->name && strcmp(cmd->name, name); cmd++)
		;
	if (!cmd->name) {
		*reply = rfsd_reply_err(EINVAL, "unknown command '%s'", name);
		return RFSD_CMD_REPLY;
	}
	return run(cmd, x, NULL, json_object_get(req), reply);
}
