// SPDX-License-Identifier: GPL-2.0
/*
 * rfsd's half of a control request (commands.h): check the struct the
 * parser process made of it (parser.c) and the peer's role, call the
 * handler; and the replies the handlers build.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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

/* A refused change, named by what of it is well-formed: "attach
 * 'eth1'", "set flow_cnt of 'eth1'", "set sock_flow_entries". */
static struct json_object *refuse_change(const struct rfsd_preq *p,
					 struct rfsd_req *r, const char *deny)
{
	char what[128] = "";
	size_t n;

	rfsd_arg_take(p, RFSD_ARG_IFACE, r, NULL, 0);
	rfsd_arg_take(p, RFSD_ARG_KEY, r, NULL, 0);
	if (r->key)
		snprintf(what, sizeof(what), " %.64s%s", r->key,
			 r->iface ? " of" : "");
	n = strlen(what);
	if (r->iface)
		snprintf(what + n, sizeof(what) - n, " '%s'", r->iface);
	return rfsd_reply_err(EACCES, "can't %s%s: permission denied: %s",
			      r->cmd->name, what, deny);
}

enum rfsd_cmd_rc rfsd_request_exec(const struct rfsd_cmd *cmds,
				   struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c, const char *deny,
				   const struct rfsd_preq *p, size_t len,
				   struct json_object **reply)
{
	size_t hdr = offsetof(struct rfsd_preq, data), ncmds;
	enum rfsd_cmd_rc rc = RFSD_CMD_REPLY;
	const struct rfsd_cmd *cmd;
	struct rfsd_req r = {};
	int a;

	*reply = NULL;
	for (ncmds = 0; cmds[ncmds].name; ncmds++)
		;
	/* a p that breaks its layout comes from a parser that is not ours
	 * any more */
	if (len < hdr || p->data_len > RFSD_PREQ_DATA ||
	    len != hdr + p->data_len)
		goto bad;
	if (p->err) {
		if (p->err < 0 || p->err > 4095 || !p->msg[0] ||
		    !memchr(p->msg, '\0', sizeof(p->msg)))
			goto bad;
		*reply = rfsd_reply_err(p->err, "%s", p->msg);
		return rc;
	}
	if (p->cmd >= ncmds)
		goto bad;
	cmd = r.cmd = &cmds[p->cmd];
	/* the parser's word on the role counts for nothing */
	if (cmd->changes && deny) {
		*reply = refuse_change(p, &r, deny);
		return rc;
	}
	if ((p->has & ~cmd->args) || (cmd->required & ~p->has))
		goto bad;
	r.has = p->has;
	for (a = 0; a < RFSD_NARGS; a++)
		if (rfsd_arg_take(p, a, &r, NULL, 0))
			goto bad;
	if (cmd->start)
		rc = cmd->start(x, c, &r, reply);
	else
		*reply = cmd->run(x, c, &r);
	if (rc == RFSD_CMD_REPLY && !*reply)
		*reply = rfsd_reply_err(EIO, "%s: internal error", cmd->name);
	return rc;
bad:
	*reply = rfsd_reply_err(EPROTO, "request: the parser process broke its protocol");
	return RFSD_CMD_REPLY;
}

enum rfsd_cmd_rc rfsd_request_run_as(const struct rfsd_cmd *cmds,
				     struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c, const char *deny,
				     const char *line, size_t len,
				     struct json_object **reply)
{
	static struct rfsd_preq p;	/* rfsd is one thread */

	rfsd_request_parse(cmds, deny != NULL, line, len, &p);
	return rfsd_request_exec(cmds, x, c, deny, &p, rfsd_preq_size(&p),
				 reply);
}

enum rfsd_cmd_rc rfsd_request_call(const struct rfsd_cmd *cmds,
				   struct rfsd_cmd_ctx *x,
				   struct json_object *req,
				   struct json_object **reply)
{
	const char *line = json_object_to_json_string(req);

	return rfsd_request_run_as(cmds, x, NULL, NULL, line, strlen(line),
				   reply);
}
