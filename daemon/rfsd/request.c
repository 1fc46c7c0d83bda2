// SPDX-License-Identifier: GPL-2.0
/*
 * Both halves of a control request (commands.h), the parser process's
 * (struct rfsd_child, docs/security.md) and rfsd's, and the replies the
 * handlers build.
 */
#include <stdarg.h>
#include <stdint.h>

#include "server.h"

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
				      const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!ret)
		ret = -EIO;
	if (err && *err)
		return rfsd_reply_err(ret, "%s", err);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
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

/* ---- the parser process's half ---- */

#define RFSD_PARSE_SECS	2

/*
 * The first key that appears twice at the top level of line, which json-c
 * has parsed as one object: 1 with it in dup, 0 if none, or -ENOMEM.
 *
 * json-c keeps the last of two equal keys without a word, and has no hook
 * into its parser: so read the (valid) text again a member at a time,
 * json-c decoding each key as it does in the object ("\u0063md" is "cmd")
 * and skipping each value whole.
 */
static int find_duplicate(const char *line, size_t len, char *dup,
			  size_t duplen)
{
	static const char ws[] = " \t\n\r\f\v";
	struct json_object *seen = json_object_new_object(), *key, *val;
	/* not strict: the line was, and strict takes no '\'' string alone */
	struct json_tokener *tok = json_tokener_new();
	size_t i = strspn(line, ws) + 1;	/* past the '{' */
	int ret = seen && tok ? 0 : -ENOMEM;
	const char *k;

	if (tok)
		json_tokener_set_flags(tok, JSON_TOKENER_ALLOW_TRAILING_CHARS);
	while (!ret && i < len && line[i += strspn(line + i, ws)] != '}') {
		json_tokener_reset(tok);
		key = json_tokener_parse_ex(tok, line + i, (int)(len - i));
		i += json_tokener_get_parse_end(tok);
		i += strspn(line + i, ws);
		if (!json_object_is_type(key, json_type_string) ||
		    line[i++] != ':') {
			json_object_put(key);
			break;		/* json-c took it: it can't happen */
		}
		json_tokener_reset(tok);
		val = json_tokener_parse_ex(tok, line + i, (int)(len - i));
		i += json_tokener_get_parse_end(tok);
		i += strspn(line + i, ws);
		i += line[i] == ',';
		json_object_put(val);
		k = json_object_get_string(key);
		if (json_object_object_get_ex(seen, k, NULL)) {
			snprintf(dup, duplen, "%s", k);
			ret = 1;
		} else if (json_object_object_add(seen, k, NULL)) {
			ret = -ENOMEM;
		}
		json_object_put(key);
	}
	json_tokener_free(tok);
	json_object_put(seen);
	return ret;
}

static __attribute__((format(printf, 3, 4))) int
say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (msg)
		vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* p refused with errno e, why in its msg */
#define refuse(p, e, ...) \
	((p)->err = (e), say((p)->msg, sizeof((p)->msg), __VA_ARGS__))

/* The request object of line, or NULL with p refused: not one JSON
 * object, or a key in it twice. */
static struct json_object *parse_line(const char *line, size_t len,
				      struct rfsd_preq *p)
{
	struct json_tokener *tok;
	struct json_object *req;
	enum json_tokener_error e;
	char dup[64];
	int r;

	if (memchr(line, '\0', len))
		return refuse(p, EINVAL, "bad request: NUL byte in request"), NULL;
	if (strspn(line, " \t\r") == len)
		return refuse(p, EINVAL, "bad request: empty line"), NULL;
	tok = json_tokener_new_ex(16);
	if (!tok)
		return refuse(p, ENOMEM, "out of memory"), NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
				    JSON_TOKENER_VALIDATE_UTF8);
	/* the NUL after the line ends a trailing number */
	req = json_tokener_parse_ex(tok, line, (int)len + 1);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	r = !req || e != json_tokener_success ? -EINVAL :
	    !json_object_is_type(req, json_type_object) ? -EBADMSG :
	    find_duplicate(line, len, dup, sizeof(dup));
	if (!r)
		return req;
	json_object_put(req);
	if (r == -EINVAL)
		refuse(p, EINVAL, "bad request: malformed JSON: %s",
		       json_tokener_error_desc(e));
	else if (r == -EBADMSG)
		refuse(p, EINVAL, "bad request: not a JSON object");
	else if (r < 0)
		refuse(p, ENOMEM, "out of memory");
	else
		refuse(p, EINVAL, "bad request: duplicate key '%s'", dup);
	return NULL;
}

static const struct {
	const char *name;
	enum rfsd_atype type;
	long long lo, hi, def;
	size_t off;
} args[RFSD_NARGS] = {
#define ARG(N, n, t, lo, hi, def) \
	{ #n, t, lo, hi, def, offsetof(struct rfsd_req, n) },
	RFSD_ARGS(ARG)
#undef ARG
};

/* Argument a of p into r (its default if p has none): 0, -EINVAL with
 * why in msg (if not NULL), or -EPROTO for what no parser of ours makes.
 * Both halves run it: the parser to refuse, rfsd not to trust. */
static int arg_take(const struct rfsd_preq *p, int a, struct rfsd_req *r,
		    char *msg, size_t len)
{
	const struct rfsd_parg *g = &p->arg[a];
	const char *s = p->data + g->off, *name = args[a].name;
	void *to = (char *)r + args[a].off;
	size_t room = g->off <= p->data_len ? p->data_len - g->off : 0;

	if (!(p->has & 1u << a)) {
		if (args[a].type == RFSD_T_INT)
			*(long long *)to = args[a].def;
		return 0;
	}
	switch (args[a].type) {
	case RFSD_T_STR:
	case RFSD_T_IFACE:
		if (g->len >= room || s[g->len])
			return -EPROTO;
		if (args[a].type == RFSD_T_IFACE && (!*s || strlen(s) >= IF_NAMESIZE))
			return say(msg, len, "bad request: '%s' must be an interface name (1..%d characters)",
				       name, IF_NAMESIZE - 1);
		*(const char **)to = s;
		return 0;
	case RFSD_T_CPUS:
		if (g->len != sizeof(r->cpus) || g->len > room)
			return -EPROTO;
		memcpy(to, s, sizeof(r->cpus));
		if (!rfs_cpuset_count(to))
			return say(msg, len, "bad request: '%s' is empty", name);
		return 0;
	case RFSD_T_BOOL:
		if (g->i != !!g->i)
			return -EPROTO;
		*(bool *)to = g->i;
		return 0;
	default:
		if (g->i < args[a].lo || g->i > args[a].hi)
			return say(msg, len, "bad request: '%s' must be %lld..%lld",
				       name, args[a].lo, args[a].hi);
		*(long long *)to = g->i;
		return 0;
	}
}

static void data_add(struct rfsd_preq *p, struct rfsd_parg *g,
		     const void *buf, size_t n)
{
	g->off = p->data_len;
	memcpy(p->data + p->data_len, buf, n);
	p->data_len += n;
}

/* v, the value of argument a, into p: 0, or -EINVAL with p refused if it
 * is not of the argument's type. */
static int encode(struct rfsd_preq *p, int a, struct json_object *v)
{
	static const struct {
		enum json_type j;
		const char *want;
	} types[] = {
		[RFSD_T_STR] = { json_type_string, "a string" },
		[RFSD_T_IFACE] = { json_type_string, "a string" },
		[RFSD_T_INT] = { json_type_int, "an integer" },
		[RFSD_T_BOOL] = { json_type_boolean, "true or false" },
		[RFSD_T_CPUS] = { json_type_array, "an array of CPU numbers" },
	};
	struct rfsd_parg *g = &p->arg[a];
	enum rfsd_atype t = args[a].type;
	struct rfs_cpuset set;
	size_t i, n;

	if (!json_object_is_type(v, types[t].j))
		return refuse(p, EINVAL, "bad request: '%s' must be %s",
			      args[a].name, types[t].want);
	p->has |= 1u << a;
	if (t == RFSD_T_INT || t == RFSD_T_BOOL) {
		g->i = json_object_get_int64(v);
	} else if (t != RFSD_T_CPUS) {
		/* with its NUL */
		g->len = json_object_get_string_len(v);
		data_add(p, g, json_object_get_string(v), g->len + 1);
	} else {
		n = json_object_array_length(v);
		rfs_cpuset_zero(&set);
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			int64_t cpu = json_object_get_int64(e);

			if (!json_object_is_type(e, json_type_int) || cpu < 0 ||
			    cpu >= RFS_MAX_CPUS)
				return refuse(p, EINVAL, "bad request: '%s' entries must be integers 0..%d",
					      args[a].name, RFS_MAX_CPUS - 1);
			rfs_cpuset_add(&set, (unsigned int)cpu);
		}
		g->len = sizeof(set);
		data_add(p, g, &set, sizeof(set));
	}
	return 0;
}

void rfsd_request_parse(const struct rfsd_cmd *cmds, bool reader,
			const char *line, size_t len, struct rfsd_preq *p)
{
	struct json_object *req, *v;
	const struct rfsd_cmd *cmd;
	struct rfsd_req r;
	bool lenient;
	int a;

	memset(p, 0, offsetof(struct rfsd_preq, data));
	if (len > RFS_CTL_REQUEST_MAX) {
		refuse(p, EMSGSIZE, "request too long (max %d bytes)",
		       RFS_CTL_REQUEST_MAX);
		return;
	}
	req = parse_line(line, len, p);
	if (!req)
		return;
	if (!json_object_object_get_ex(req, "cmd", &v) || !v)
		refuse(p, EINVAL, "bad request: missing 'cmd'");
	else if (!json_object_is_type(v, json_type_string))
		refuse(p, EINVAL, "bad request: 'cmd' must be a string");
	if (p->err)
		goto out;
	for (cmd = cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, json_object_get_string(v)))
			break;
	if (!cmd->name) {
		refuse(p, EINVAL, "unknown command '%.400s'",
		       json_object_get_string(v));
		goto out;
	}
	p->cmd = cmd - cmds;
	/* a reader is refused a change before its arguments are looked
	 * at: rfsd gets only the names its refusal says, if strings */
	lenient = reader && cmd->changes;
	json_object_object_foreach(req, key, val) {
		for (a = 0; a < RFSD_NARGS && strcmp(args[a].name, key); a++)
			;
		if (a < RFSD_NARGS && !(cmd->args & 1u << a))
			a = RFSD_NARGS;
		if (lenient) {
			if ((a == RFSD_ARG_IFACE || a == RFSD_ARG_KEY) &&
			    json_object_is_type(val, json_type_string))
				encode(p, a, val);
		} else if (a == RFSD_NARGS && strcmp(key, "cmd")) {
			refuse(p, EINVAL, "bad request: '%s' takes no argument '%.400s'",
			       cmd->name, key);
			goto out;
		} else if (a < RFSD_NARGS && val &&	/* null is absent */
			   (encode(p, a, val) ||
			    arg_take(p, a, &r, p->msg, sizeof(p->msg)))) {
			p->err = EINVAL;
			goto out;
		}
	}
	for (a = 0; a < RFSD_NARGS && !lenient; a++) {
		if (cmd->required & ~p->has & 1u << a) {
			refuse(p, EINVAL, "bad request: missing '%s'", args[a].name);
			break;
		}
	}
out:
	json_object_put(req);
}

void rfsd_request_serve(struct rfsd_child *c)
{
	static char line[1 + RFS_CTL_REQUEST_MAX + 1];
	static struct rfsd_preq p;
	const struct rfsd_cmd *cmds = c->arg;
	ssize_t n;

	for (;;) {
		n = recv(c->fd, line, sizeof(line) - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		line[n] = '\0';
		/* a line parses in far less; one that does not is a loop,
		 * which SIGALRM ends (rfsd can't signal another uid) */
		alarm(RFSD_PARSE_SECS);
		rfsd_request_parse(cmds, line[0], line + 1, n - 1, &p);
		alarm(0);
		if (send(c->fd, &p, rfsd_preq_size(&p), MSG_NOSIGNAL) < 0)
			return;
	}
}

/* ---- rfsd's half ---- */

/* A refused change, named by what of it is well-formed: "attach
 * 'eth1'", "set flow_cnt of 'eth1'", "set sock_flow_entries". */
static struct json_object *refuse_change(const struct rfsd_preq *p,
					 struct rfsd_req *r, const char *deny)
{
	char what[128] = "";
	size_t n;

	arg_take(p, RFSD_ARG_IFACE, r, NULL, 0);
	arg_take(p, RFSD_ARG_KEY, r, NULL, 0);
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
		if (arg_take(p, a, &r, NULL, 0))
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
