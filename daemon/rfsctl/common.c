// SPDX-License-Identifier: GPL-2.0
/* What every command shares (rfsctl.h).  Whatever fails in a request to
 * rfsd (no daemon, a refusal) is a runtime error: exit 1. */
#include "rfsctl.h"

struct rfsctl_cfg rfsctl_cfg;

void p_err(const char *fmt, ...)
{
	struct json_object *obj;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!rfsctl_cfg.json) {
		fflush(stdout);
		fprintf(stderr, "rfsctl: %s\n", msg);
		return;
	}
	/* bpftool style: under -j the error is the one document on stdout */
	obj = json_object_new_object();
	json_object_object_add(obj, "error", json_object_new_string(msg));
	p_json(obj);
	json_object_put(obj);
}

int p_usage(const char *path, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (path)
		p_err("%s: %s, try 'rfsctl %s --help'", path, msg, path);
	else
		p_err("%s, try 'rfsctl help'", msg);
	return RFSCTL_EXIT_USAGE;
}

void p_json(struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	if (rfsctl_cfg.pretty)
		flags |= JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	/* a NULL obj prints "null": the document is still valid JSON */
	printf("%s\n", json_object_to_json_string_ext(obj, flags));
}

/* An array of CPU numbers as a CPU list; false if it is something else. */
static bool fmt_cpus(struct json_object *v, char *buf, size_t len)
{
	struct rfs_cpuset set;
	struct json_object *e;
	size_t i, n = json_object_array_length(v);
	int64_t cpu;

	rfs_cpuset_zero(&set);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(v, i);
		cpu = json_object_get_int64(e);
		if (!json_object_is_type(e, json_type_int) || cpu < 0 ||
		    cpu >= RFS_MAX_CPUS)
			return false;
		rfs_cpuset_add(&set, cpu);
	}
	rfs_cpulist_format(&set, buf, len);
	if (!n)
		snprintf(buf, len, "none");
	return true;
}

void rfs_fmt_value(struct json_object *v, char *buf, size_t len)
{
	char sub[256];
	size_t off = 0;

	switch (json_object_get_type(v)) {
	case json_type_null:
		snprintf(buf, len, "-");
		return;
	case json_type_boolean:
		snprintf(buf, len, "%s",
			 json_object_get_boolean(v) ? "yes" : "no");
		return;
	case json_type_string:
		snprintf(buf, len, "%s", json_object_get_string(v));
		return;
	case json_type_array:
		if (fmt_cpus(v, buf, len))
			return;
		break;
	case json_type_object:
		buf[0] = '\0';
		json_object_object_foreach(v, key, val) {
			rfs_fmt_value(val, sub, sizeof(sub));
			if (off < len)
				off += snprintf(buf + off, len - off, "%s%s %s",
						off ? ", " : "", key, sub);
		}
		return;
	default:
		break;
	}
	/* numbers keep their exact text: counters may be full 64 bits */
	snprintf(buf, len, "%s",
		 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						JSON_C_TO_STRING_NOSLASHESCAPE));
}

static bool in_list(const char *const *list, const char *key)
{
	for (; list && *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

/* "sock_flow_entries" -> "sock flow entries"; a few read better renamed. */
static void print_kv_one(const char *indent, const char *key,
			 struct json_object *v)
{
	static const char *const renames[][2] = {
		{ "mode", "xdp mode" },
		{ "nr_cpus", "possible cpus" },
		{ "prog_id", "program id" },
	};
	char label[64], val[1024], *p;
	size_t i;

	snprintf(label, sizeof(label), "%s", key);
	for (i = 0; i < sizeof(renames) / sizeof(renames[0]); i++)
		if (!strcmp(key, renames[i][0]))
			snprintf(label, sizeof(label), "%s", renames[i][1]);
	for (p = label; *p; p++)
		if (*p == '_')
			*p = ' ';
	rfs_fmt_value(v, val, sizeof(val));
	printf("%s%-18s %s\n", indent, label, val);
}

void rfs_print_kv(struct json_object *obj, const char *indent,
		  const char *const *order, const char *const *skip)
{
	const char *const *k;
	struct json_object *v;

	for (k = order; k && *k; k++)
		if (json_object_object_get_ex(obj, *k, &v) &&
		    !in_list(skip, *k))
			print_kv_one(indent, *k, v);
	json_object_object_foreach(obj, key, val) {
		if (!in_list(order, key) && !in_list(skip, key))
			print_kv_one(indent, key, val);
	}
}

/* ---- requests ---- */

struct json_object *rfs_req_new(const char *cmd, const struct rfs_opt *opts,
				const void *cfg)
{
	struct json_object *req = json_object_new_object(), *v;
	const struct rfs_opt *o;
	unsigned int cpu, n;
	const char *str;
	const void *p;

	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	for (o = opts; o && o->name; o++) {
		if (!o->key)
			continue;
		p = (const char *)cfg + o->offset;
		switch (o->type) {
		case OPT_BOOL:
			v = *(const bool *)p ? json_object_new_boolean(1) : NULL;
			break;
		case OPT_UINT:
			n = *(const unsigned int *)p;
			v = n ? json_object_new_int(n) : NULL;
			break;
		case OPT_INT:
			n = *(const int *)p;
			v = (int)n >= 0 ? json_object_new_int(n) : NULL;
			break;
		case OPT_CPULIST:
			v = rfs_cpuset_count(p) ? json_object_new_array() : NULL;
			for (cpu = 0; v && cpu < RFS_MAX_CPUS; cpu++)
				if (rfs_cpuset_has(p, cpu))
					json_object_array_add(v,
						json_object_new_int(cpu));
			break;
		default:
			str = *(const char *const *)p;
			v = str ? json_object_new_string(str) : NULL;
		}
		if (v)
			json_object_object_add(req, o->key, v);
	}
	return req;
}

int rfs_call(const struct rfsctl_cfg *g, struct json_object *req,
	     int timeout_ms, struct json_object **result, char *err,
	     size_t len)
{
	char own[RFS_CTL_ERR_LEN];
	struct rfs_ctl *ctl;
	int ret;

	if (!err) {
		err = own;
		len = sizeof(own);
	}
	*result = NULL;
	ret = rfs_ctl_connect(&ctl, g->socket, timeout_ms, err, len);
	if (ret)
		json_object_put(req);
	else if (req)
		ret = rfs_ctl_ask(ctl, req, result, err, len);
	else
		ret = rfs_prom_collect(rfs_ctl_ask, ctl, result, err, len);
	rfs_ctl_close(ctl);
	/* the daemon's message names object and cause: pass it through */
	if (ret && err == own)
		p_err("%s", err);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

int rfs_expect(struct json_object *result, enum json_type type,
	       const char *what)
{
	if (json_object_is_type(result, type))
		return EXIT_SUCCESS;
	p_err("unexpected reply from rfsd: %s is not an %s", what,
	      json_type_to_name(type));
	return EXIT_FAILURE;
}

int rfs_show(const struct rfsctl_cfg *g, struct json_object *req,
	     int extra_ms, const char *key, enum json_type type,
	     const char *what,
	     void (*plain)(struct json_object *r, const void *arg),
	     const void *arg)
{
	struct json_object *result, *r;
	int ret;

	ret = rfs_call(g, req, RFS_CTL_TIMEOUT_MS + extra_ms, &result, NULL,
		       0);
	r = result;
	if (!ret && key && !json_object_object_get_ex(result, key, &r))
		r = NULL;
	if (!ret && what)
		ret = rfs_expect(r, type, what);
	if (!ret && g->json)
		p_json(r);
	else if (!ret && plain)
		plain(r, arg);
	json_object_put(result);
	return ret;
}
