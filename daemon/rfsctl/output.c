// SPDX-License-Identifier: GPL-2.0
/*
 * Output: the p_err family, JSON documents through json-c, and the plain
 * text helpers the _plain printers share (aligned tables, values as text).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfsctl.h"

static const struct rfsctl_cfg *out_cfg;	/* NULL: plain, not pretty */

void rfs_output_init(const struct rfsctl_cfg *g)
{
	out_cfg = g;
}

void p_err(const char *fmt, ...)
{
	struct json_object *obj;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (!out_cfg || !out_cfg->json) {
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
	/* "attach: missing IFACE, try 'rfsctl attach --help'" */
	if (path)
		p_err("%s: %s, try 'rfsctl %s --help'", path, msg, path);
	else
		p_err("%s, try 'rfsctl help'", msg);
	return RFSCTL_EXIT_USAGE;
}

void p_json(struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	if (out_cfg && out_cfg->pretty)
		flags |= JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	/* a NULL obj prints "null": the document is still valid JSON */
	printf("%s\n", json_object_to_json_string_ext(obj, flags));
}

struct rfs_table {
	int ncols;
	size_t ncells, cap;
	char **cells;
	bool *left;
};

struct rfs_table *rfs_table_new(int ncols, const bool *left)
{
	struct rfs_table *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncols = ncols;
	t->left = calloc(ncols, sizeof(*t->left));
	if (!t->left) {
		free(t);
		return NULL;
	}
	if (left)
		memcpy(t->left, left, ncols * sizeof(*left));
	return t;
}

void rfs_table_add(struct rfs_table *t, const char *cell)
{
	char **nc;

	if (!t)
		return;
	if (t->ncells == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		nc = realloc(t->cells, t->cap * sizeof(*nc));
		if (!nc) {
			t->cap = t->ncells;
			return;
		}
		t->cells = nc;
	}
	t->cells[t->ncells] = strdup(cell ? cell : "");
	if (t->cells[t->ncells])
		t->ncells++;
}

void rfs_table_addf(struct rfs_table *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rfs_table_add(t, buf);
}

void rfs_table_print(struct rfs_table *t, FILE *f, const char *indent)
{
	size_t i, n, off = 0, *w;
	char *line;
	int c;

	if (!t || !t->ncells)
		return;
	w = calloc(t->ncols, sizeof(*w));
	if (!w)
		return;
	for (i = 0, n = 0; i < t->ncells; i++) {
		if (strlen(t->cells[i]) > w[i % t->ncols])
			w[i % t->ncols] = strlen(t->cells[i]);
	}
	for (c = 0; c < t->ncols; c++)
		n += w[c] + 2;
	line = malloc(n + 1);
	if (!line) {
		free(w);
		return;
	}
	for (i = 0; i < t->ncells; i++) {
		c = i % t->ncols;
		off += snprintf(line + off, n + 1 - off, t->left[c] ? "%-*s%s" :
				"%*s%s", (int)w[c], t->cells[i],
				c == t->ncols - 1 ? "" : "  ");
		if (c != t->ncols - 1 && i + 1 != t->ncells)
			continue;
		/* no trailing blanks: empty cells make title rows */
		while (off && line[off - 1] == ' ')
			off--;
		line[off] = '\0';
		fprintf(f, "%s%s\n", indent ? indent : "", line);
		off = 0;
	}
	free(line);
	free(w);
}

void rfs_table_free(struct rfs_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->left);
	free(t);
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
		if (!json_object_is_type(e, json_type_int))
			return false;
		cpu = json_object_get_int64(e);
		if (cpu < 0 || cpu >= RFS_MAX_CPUS)
			return false;
		rfs_cpuset_add(&set, cpu);
	}
	if (!n)
		snprintf(buf, len, "none");
	else
		rfs_cpulist_format(&set, buf, len);
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

void rfs_fmt_member(struct json_object *obj, const char *key, char *buf,
		    size_t len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		snprintf(buf, len, "-");
	else
		rfs_fmt_value(v, buf, len);
}

/* "sock_flow_entries" -> "sock flow entries"; a few read better renamed. */
static void label_of(const char *key, char *buf, size_t len)
{
	static const struct {
		const char *key, *label;
	} renames[] = {
		{ "mode", "xdp mode" },
		{ "nr_cpus", "possible cpus" },
		{ "prog_id", "program id" },
	};
	size_t i;
	char *p;

	for (i = 0; i < sizeof(renames) / sizeof(renames[0]); i++)
		if (!strcmp(key, renames[i].key)) {
			snprintf(buf, len, "%s", renames[i].label);
			return;
		}
	snprintf(buf, len, "%s", key);
	for (p = buf; *p; p++)
		if (*p == '_')
			*p = ' ';
}

static bool in_list(const char *const *list, const char *key)
{
	for (; list && *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

static void print_kv_one(FILE *f, const char *indent, const char *key,
			 struct json_object *v)
{
	char label[64], val[1024];

	label_of(key, label, sizeof(label));
	rfs_fmt_value(v, val, sizeof(val));
	fprintf(f, "%s%-18s %s\n", indent, label, val);
}

void rfs_print_kv(FILE *f, struct json_object *obj, const char *indent,
		  const char *const *order, const char *const *skip)
{
	const char *const *k;
	struct json_object *v;

	/* the known keys in a sensible order, then whatever rfsd added */
	for (k = order; k && *k; k++)
		if (json_object_object_get_ex(obj, *k, &v) &&
		    !in_list(skip, *k))
			print_kv_one(f, indent, *k, v);
	json_object_object_foreach(obj, key, val) {
		if (!in_list(order, key) && !in_list(skip, key))
			print_kv_one(f, indent, key, val);
	}
}
