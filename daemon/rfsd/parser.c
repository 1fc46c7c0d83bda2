// SPDX-License-Identifier: GPL-2.0
/*
 * The parser process's half of a control request (commands.h): every
 * check that needs no datapath, made on the line a peer sent, into a
 * struct rfsd_preq for rfsd (request.c).  It runs in a process with no
 * capabilities and no uid of its own (server.c, docs/security.md), so a
 * bug in json-c or here gets an attacker nothing rfsd holds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "commands.h"

#define RFSD_PARSE_SECS	2

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


static __attribute__((format(printf, 3, 4))) void
refuse(struct rfsd_preq *p, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	p->err = e;
}

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
	tok = new_tokener();
	if (!tok)
		return refuse(p, ENOMEM, "out of memory"), NULL;
	/* the NUL after the line ends a trailing number */
	req = json_tokener_parse_ex(tok, line, (int)len + 1);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!req || e != json_tokener_success) {
		json_object_put(req);
		refuse(p, EINVAL, "bad request: malformed JSON: %s",
		       json_tokener_error_desc(e));
		return NULL;
	}
	if (!json_object_is_type(req, json_type_object)) {
		json_object_put(req);
		return refuse(p, EINVAL, "bad request: not a JSON object"), NULL;
	}
	r = find_duplicate(line, len, dup, sizeof(dup));
	if (r) {
		json_object_put(req);
		if (r < 0)
			refuse(p, ENOMEM, "out of memory");
		else
			refuse(p, EINVAL, "bad request: duplicate key '%s'", dup);
		return NULL;
	}
	return req;
}

static int arg_index(const char *const *args, const char *key)
{
	int i;

	for (i = 0; args[i]; i++)
		if (!strcmp(args[i], key))
			return i;
	return -1;
}

static void *data_add(struct rfsd_preq *p, struct rfsd_parg *a,
		      const void *buf, size_t n)
{
	a->off = p->data_len;
	memcpy(p->data + p->data_len, buf, n);
	p->data_len += n;
	return p->data + a->off;
}

/* v as a typed value: what the getters will see in the rebuilt object.
 * An array is a set of CPUs, or kept only as "an array, but not that". */
static void encode_value(struct rfsd_preq *p, struct rfsd_parg *a,
			 struct json_object *v)
{
	struct rfs_cpuset set;
	size_t i, n;

	switch (json_object_get_type(v)) {
	case json_type_null:
		a->type = RFSD_PV_NULL;
		break;
	case json_type_boolean:
		a->type = RFSD_PV_BOOL;
		a->i = json_object_get_boolean(v);
		break;
	case json_type_int:
		a->type = RFSD_PV_INT;
		a->i = json_object_get_int64(v);
		break;
	case json_type_double:
		a->type = RFSD_PV_DOUBLE;
		a->d = json_object_get_double(v);
		break;
	case json_type_string:
		a->type = RFSD_PV_STR;
		a->len = json_object_get_string_len(v);
		data_add(p, a, json_object_get_string(v), a->len);
		p->data[p->data_len++] = '\0';
		break;
	case json_type_array:
		a->type = RFSD_PV_BADARR;
		n = json_object_array_length(v);
		rfs_cpuset_zero(&set);
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			int64_t cpu;

			if (!e || !json_object_is_type(e, json_type_int) ||
			    (cpu = json_object_get_int64(e)) < 0 ||
			    cpu >= RFS_MAX_CPUS)
				break;
			rfs_cpuset_add(&set, (unsigned int)cpu);
		}
		a->i = n > 0;
		if (n && i == n) {
			a->type = RFSD_PV_CPUS;
			a->len = sizeof(set);
			data_add(p, a, &set, sizeof(set));
		}
		break;
	default:
		a->type = RFSD_PV_OTHER;
	}
}

void rfsd_request_parse(const struct rfsd_cmd *cmds, bool reader,
			const char *line, size_t len, struct rfsd_preq *p)
{
	struct json_object *req, *v;
	const struct rfsd_cmd *cmd;
	int k;

	memset(p, 0, offsetof(struct rfsd_preq, data));
	if (len > RFS_CTL_REQUEST_MAX)
		return refuse(p, EMSGSIZE, "request too long (max %d bytes)",
			      RFS_CTL_REQUEST_MAX);
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
	json_object_object_foreach(req, key, val) {
		if (!strcmp(key, "cmd"))
			continue;
		k = arg_index(cmd->args, key);
		/* a reader is refused before its arguments are looked at */
		if (k < 0 && reader && cmd->changes)
			continue;
		if (k < 0) {
			refuse(p, EINVAL, "bad request: '%s' takes no argument '%.400s'",
			       cmd->name, key);
			goto out;
		}
		if (p->nargs == RFSD_PREQ_ARGS) {
			refuse(p, E2BIG, "bad request: too many arguments");
			goto out;
		}
		p->arg[p->nargs].key = k;
		encode_value(p, &p->arg[p->nargs++], val);
	}
out:
	json_object_put(req);
}

void rfsd_request_serve(int fd, const struct rfsd_cmd *cmds)
{
	static char line[1 + RFS_CTL_REQUEST_MAX + 1];
	static struct rfsd_preq p;
	ssize_t n;

	for (;;) {
		n = recv(fd, line, sizeof(line) - 1, 0);
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
		if (send(fd, &p, rfsd_preq_size(&p), MSG_NOSIGNAL) < 0)
			return;
	}
}

