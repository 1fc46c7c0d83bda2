// SPDX-License-Identifier: GPL-2.0
/*
 * Control requests, from the line to the handler (request.h).  Every check
 * that needs no datapath is made here, before any handler runs: the line
 * is one JSON object, no key appears twice, "cmd" names a command, every
 * other key is an argument of that command.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "rfs_ctl_proto.h"

struct json_object *rfsd_reply_ok(struct json_object *result)
{
	struct json_object *r = json_object_new_object();

	json_object_object_add(r, "ok", json_object_new_boolean(1));
	json_object_object_add(r, "result", result);
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
	json_object_object_add(r, "ok", json_object_new_boolean(0));
	json_object_object_add(r, "error", json_object_new_string(msg));
	json_object_object_add(r, "errno", json_object_new_int(e < 0 ? -e : e));
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

static struct json_object *arg_get(struct json_object *req, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(req, key, &v))
		return NULL;
	return v;	/* NULL for JSON null too */
}

int rfsd_arg_str(struct json_object *req, const char *key, bool required,
		 const char **out, struct json_object **reply)
{
	struct json_object *v = arg_get(req, key);

	if (!v) {
		if (!required)
			return 1;
		*reply = rfsd_reply_err(EINVAL, "bad request: missing '%s'", key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_string)) {
		*reply = rfsd_reply_err(EINVAL, "bad request: '%s' must be a string",
					key);
		return -EINVAL;
	}
	*out = json_object_get_string(v);
	return 0;
}

int rfsd_arg_bool(struct json_object *req, const char *key, bool required,
		  bool *out, struct json_object **reply)
{
	struct json_object *v = arg_get(req, key);

	if (!v) {
		if (!required)
			return 1;
		*reply = rfsd_reply_err(EINVAL, "bad request: missing '%s'", key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_boolean)) {
		*reply = rfsd_reply_err(EINVAL, "bad request: '%s' must be true or false",
					key);
		return -EINVAL;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

int rfsd_arg_int(struct json_object *req, const char *key, bool required,
		 long long lo, long long hi, long long *out,
		 struct json_object **reply)
{
	struct json_object *v = arg_get(req, key);
	int64_t n;

	if (!v) {
		if (!required)
			return 1;
		*reply = rfsd_reply_err(EINVAL, "bad request: missing '%s'", key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_int)) {
		*reply = rfsd_reply_err(EINVAL, "bad request: '%s' must be an integer",
					key);
		return -EINVAL;
	}
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
	struct json_object *v = arg_get(req, key);
	size_t i, n;

	rfs_cpuset_zero(out);
	if (!v) {
		if (!required)
			return 1;
		*reply = rfsd_reply_err(EINVAL, "bad request: missing '%s'", key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_array)) {
		*reply = rfsd_reply_err(EINVAL,
					"bad request: '%s' must be an array of CPU numbers",
					key);
		return -EINVAL;
	}
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

static struct json_tokener *new_tokener(void)
{
	struct json_tokener *tok = json_tokener_new_ex(16);

	if (tok)
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	return tok;
}

/* The key whose literal is s[0..n) (quotes included), as json-c spells it
 * in the object: escapes decoded, cut at a NUL.  Into buf, or NULL. */
static const char *decode_key(struct json_tokener *tok, const char *s,
			      size_t n, char *buf, size_t len)
{
	struct json_object *o;

	if (!memchr(s, '\\', n) && n - 2 < len) {
		/* the common case: nothing to decode */
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		return buf;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (!o || !json_object_is_type(o, json_type_string)) {
		json_object_put(o);
		return NULL;
	}
	snprintf(buf, len, "%s", json_object_get_string(o));
	json_object_put(o);
	return buf;
}

/*
 * The first key that appears twice at the top level of line, which json-c
 * has parsed as an object (its keys are then at most len bytes each): 1
 * with it in dup, 0 if none, or -ENOMEM.
 *
 * json-c keeps the last of two equal keys without a word, and has no hook
 * into its parser: so walk the text again, which is known to be valid.
 * Only strings and brackets matter: a string is skipped whole (quotes '"'
 * or, as json-c also takes them, '\''; a backslash escapes the next
 * byte), and at depth 1 the first string after '{' or ',' is a key.  Each
 * key goes back to json-c to be decoded, so "\u0063md" is "cmd" as it is
 * in the object, and into a set of those seen (a json-c object: hashed).
 * Nested objects are not walked: no argument takes one, and the type
 * check of every argument refuses them.
 */
static int find_duplicate(const char *line, size_t len, char *dup,
			  size_t duplen)
{
	struct json_object *seen = json_object_new_object();
	struct json_tokener *tok = new_tokener();
	char *key = malloc(len + 1);
	bool want_key = false;
	int depth = 0, ret = 0;
	size_t i = 0;

	if (!seen || !tok || !key) {
		ret = -ENOMEM;
		goto out;
	}
	while (i < len && !ret) {
		char q = line[i];
		size_t start = i;
		const char *k;

		if (q != '"' && q != '\'') {
			if (q == '{' || q == '[')
				want_key = ++depth == 1 && q == '{';
			else if (q == '}' || q == ']')
				depth--;
			else if (q == ',' && depth == 1)
				want_key = true;
			i++;
			continue;
		}
		for (i++; i < len && line[i] != q; i++)
			if (line[i] == '\\')
				i++;
		i++;		/* past the closing quote */
		if (depth != 1 || !want_key || i > len)
			continue;
		want_key = false;
		k = decode_key(tok, line + start, i - start, key, len + 1);
		if (!k)
			continue;	/* json-c took it: it can't happen */
		if (json_object_object_get_ex(seen, k, NULL)) {
			snprintf(dup, duplen, "%s", k);
			ret = 1;
		} else if (json_object_object_add(seen, k, NULL)) {
			ret = -ENOMEM;
		}
	}
out:
	free(key);
	json_tokener_free(tok);
	json_object_put(seen);
	return ret;
}

struct json_object *rfsd_request_parse(const char *line, size_t len,
				       struct json_object **reply)
{
	struct json_tokener *tok;
	struct json_object *req;
	enum json_tokener_error e;
	size_t blank = strspn(line, " \t\r");
	char dup[64];
	int r;

	if (memchr(line, '\0', len)) {
		*reply = rfsd_reply_err(EINVAL, "bad request: NUL byte in request");
		return NULL;
	}
	if (blank == len) {
		*reply = rfsd_reply_err(EINVAL, "bad request: empty line");
		return NULL;
	}
	tok = new_tokener();
	if (!tok) {
		*reply = rfsd_reply_err(ENOMEM, "out of memory");
		return NULL;
	}
	/* the NUL after the line ends a trailing number */
	req = json_tokener_parse_ex(tok, line, (int)len + 1);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!req || e != json_tokener_success) {
		json_object_put(req);
		*reply = rfsd_reply_err(EINVAL, "bad request: malformed JSON: %s",
					json_tokener_error_desc(e));
		return NULL;
	}
	if (!json_object_is_type(req, json_type_object)) {
		json_object_put(req);
		*reply = rfsd_reply_err(EINVAL, "bad request: not a JSON object");
		return NULL;
	}
	r = find_duplicate(line, len, dup, sizeof(dup));
	if (r) {
		json_object_put(req);
		*reply = r < 0 ? rfsd_reply_err(ENOMEM, "out of memory") :
			 rfsd_reply_err(EINVAL, "bad request: duplicate key '%s'",
					dup);
		return NULL;
	}
	return req;
}

static bool known_arg(const char *const *args, const char *key)
{
	for (; *args; args++)
		if (!strcmp(*args, key))
			return true;
	return false;
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

enum rfsd_cmd_rc rfsd_request_run(const struct rfsd_cmd *cmds,
				  struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				  const char *line, size_t len,
				  struct json_object **reply)
{
	return rfsd_request_run_as(cmds, x, c, NULL, line, len, reply);
}

enum rfsd_cmd_rc rfsd_request_run_as(const struct rfsd_cmd *cmds,
				     struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c, const char *deny,
				     const char *line, size_t len,
				     struct json_object **reply)
{
	const struct rfsd_cmd *cmd = NULL;
	struct json_object *req;
	enum rfsd_cmd_rc rc = RFSD_CMD_REPLY;
	const char *name;

	*reply = NULL;
	if (len > RFS_CTL_REQUEST_MAX) {
		*reply = rfsd_reply_err(EMSGSIZE, "request too long (max %d bytes)",
					RFS_CTL_REQUEST_MAX);
		return RFSD_CMD_REPLY;
	}
	req = rfsd_request_parse(line, len, reply);
	if (!req)
		return RFSD_CMD_REPLY;
	if (rfsd_arg_str(req, "cmd", true, &name, reply) < 0)
		goto out;
	for (cmd = cmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, name))
			break;
	if (!cmd->name) {
		*reply = rfsd_reply_err(EINVAL, "unknown command '%s'", name);
		cmd = NULL;
		goto out;
	}
	/* before the arguments: a reader learns nothing from their checks */
	if (cmd->changes && deny) {
		*reply = refuse_change(cmd, req, deny);
		goto out;
	}
	json_object_object_foreach(req, key, val) {
		(void)val;
		if (strcmp(key, "cmd") && !known_arg(cmd->args, key)) {
			*reply = rfsd_reply_err(EINVAL,
						"bad request: '%s' takes no argument '%s'",
						cmd->name, key);
			goto out;
		}
	}
	if (cmd->start)
		rc = cmd->start(x, c, req, reply);
	else
		*reply = cmd->run(x, c, req);
out:
	json_object_put(req);
	/* name pointed into req: only the table's own name is left */
	if (rc == RFSD_CMD_REPLY && !*reply)
		*reply = rfsd_reply_err(EIO, "%s: internal error",
					cmd ? cmd->name : "request");
	return rc;
}
