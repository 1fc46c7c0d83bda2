// SPDX-License-Identifier: GPL-2.0
/*
 * One snapshot for rfsctl top: the counters of `stats` (per CPU and in
 * total) and of `stats IFACE` for each attached interface, as rows of
 * top_rates.h.  Everything is asked on one connection, one request per
 * line, so a sample costs rfsd a connection and 2 + interfaces replies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_client.h"
#include "log.h"
#include "mono.h"
#include "top.h"

double rfs_top_now(void)
{
	return rfs_mono_ns() / 1e9;
}

static void trace(const char *dir, const char *line, void *arg)
{
	pr_debug("%s %s\n", !strcmp(dir, "send") ? ">" : "<", line);
}

/* req (consumed) -> *reply (the caller puts it), *result inside it */
static int ask(struct rfs_ctl *ctl, struct json_object *req,
	       struct json_object **reply, struct json_object **result,
	       enum json_type type, char *err, size_t len)
{
	int ret;

	*reply = NULL;
	ret = rfs_ctl_request(ctl, req, reply, err, len);
	json_object_put(req);
	if (!ret)
		ret = rfs_ctl_result(*reply, result, err, len);
	if (!ret && !json_object_is_type(*result, type)) {
		snprintf(err, len, "unexpected reply from rfsd: the result is not %s",
			 json_type_to_name(type));
		ret = -EPROTO;
	}
	return ret;
}

static __u64 get_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       (__u64)json_object_get_uint64(v) : 0;
}

static bool has_ctr(struct json_object *o, enum rfs_top_ctr k)
{
	return json_object_object_get_ex(o, rfs_top_ctr_keys[k], NULL);
}

static void fill_row(struct rfs_top_row *r, enum rfs_top_kind kind,
		     const char *name, struct json_object *ctrs)
{
	struct json_object *v;
	int k;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->name, sizeof(r->name), "%s", name);
	for (k = 0; k < RFS_TOP_NR_CTRS; k++)
		r->ctr[k] = get_u64(ctrs, rfs_top_ctr_keys[k]);
	r->backlog = json_object_object_get_ex(ctrs, "backlog", &v) ?
		     (long long)json_object_get_int64(v) : RFS_TOP_NO_BACKLOG;
	/* absent when rfsd could not read them, and then not 0 */
	r->has_kthread = has_ctr(ctrs, RFS_TOP_KTHREAD_WAIT_NS) &&
			 has_ctr(ctrs, RFS_TOP_KTHREAD_RUNS);
}

static struct rfs_top_row *add_row(struct rfs_top_snap *snap, size_t *cap)
{
	struct rfs_top_row *rows;

	if (snap->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		rows = realloc(snap->rows, *cap * sizeof(*rows));
		if (!rows)
			return NULL;
		snap->rows = rows;
	}
	return &snap->rows[snap->n++];
}

void rfs_top_sample_free(struct rfs_top_sample *s)
{
	free(s->snap.rows);
	memset(s, 0, sizeof(*s));
}

#define NOMEM()	(snprintf(err, len, "can't sample rfsd: out of memory"), -ENOMEM)

/* The stats reply st: a row per CPU and the total. */
static int add_stats(struct rfs_top_sample *s, size_t *cap,
		     struct json_object *st, char *err, size_t len)
{
	struct json_object *total, *per, *pc, *cpu;
	struct rfs_top_row *r;
	char name[RFS_TOP_NAME_LEN];
	size_t i;

	if (!json_object_object_get_ex(st, "total", &total) ||
	    !json_object_object_get_ex(st, "per_cpu", &per) ||
	    !json_object_is_type(per, json_type_array)) {
		snprintf(err, len, "unexpected reply from rfsd: stats has no \"total\" or \"per_cpu\"");
		return -EPROTO;
	}
	for (i = 0; i < json_object_array_length(per); i++) {
		pc = json_object_array_get_idx(per, i);
		if (json_object_object_get_ex(pc, "cpu", &cpu))
			snprintf(name, sizeof(name), "%d",
				 json_object_get_int(cpu));
		else
			snprintf(name, sizeof(name), "%u", (unsigned int)i);
		if (!(r = add_row(&s->snap, cap)))
			return NOMEM();
		fill_row(r, RFS_TOP_CPU, name, pc);
		s->n_cpus++;
	}
	if (!(r = add_row(&s->snap, cap)))
		return NOMEM();
	fill_row(r, RFS_TOP_TOTAL, "all", total);
	/* the total backlog is the sum of the CPUs' */
	r->backlog = RFS_TOP_NO_BACKLOG;
	for (i = 0; i < s->n_cpus; i++) {
		long long b = s->snap.rows[s->snap.n - 1 - s->n_cpus + i].backlog;

		if (b == RFS_TOP_NO_BACKLOG)
			continue;
		r->backlog = (r->backlog < 0 ? 0 : r->backlog) + b;
	}
	return 0;
}

/* One interface's stats: a row of its totals.  An interface detached
 * between status and its stats is left out, not an error. */
static int add_iface(struct rfs_top_sample *s, size_t *cap,
		     struct rfs_ctl *ctl, const char *name, char *err,
		     size_t len)
{
	struct json_object *req = rfs_req_new("stats"), *reply, *res, *total;
	struct rfs_top_row *r;
	int ret;

	rfs_req_add_str(req, "iface", name);
	ret = ask(ctl, req, &reply, &res, json_type_object, err, len);
	if (ret == -ENODEV || ret == -ENOENT) {
		json_object_put(reply);
		return 0;
	}
	if (!ret && !json_object_object_get_ex(res, "total", &total)) {
		snprintf(err, len, "unexpected reply from rfsd: stats %s has no \"total\"",
			 name);
		ret = -EPROTO;
	}
	if (!ret) {
		if ((r = add_row(&s->snap, cap))) {
			fill_row(r, RFS_TOP_IFACE, name, total);
			s->n_ifaces++;
		} else {
			ret = NOMEM();
		}
	}
	json_object_put(reply);
	return ret;
}

int rfs_top_fetch(const struct rfsctl_cfg *g, struct rfs_top_sample *s,
		  char *err, size_t len)
{
	struct json_object *rst = NULL, *rsta = NULL, *st, *sta, *ifs, *v;
	struct rfs_ctl *ctl;
	size_t cap = 0, i;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = rfs_ctl_connect(&ctl, g->socket, err, len);
	if (ret)
		return ret;
	rfs_ctl_set_trace(ctl, trace, NULL);
	rfs_ctl_set_timeout(ctl, RFS_TOP_REPLY_MS);

	ret = ask(ctl, rfs_req_new("status"), &rst, &st, json_type_object,
		  err, len);
	if (!ret)
		ret = ask(ctl, rfs_req_new("stats"), &rsta, &sta,
			  json_type_object, err, len);
	/* the time of the counters: taken as soon as they are read */
	s->snap.t = rfs_top_now();
	if (!ret)
		ret = add_stats(s, &cap, sta, err, len);
	if (!ret && json_object_object_get_ex(st, "version", &v))
		snprintf(s->version, sizeof(s->version), "%s",
			 json_object_get_string(v));
	if (!ret && json_object_object_get_ex(st, "interfaces", &ifs) &&
	    json_object_is_type(ifs, json_type_array)) {
		for (i = 0; !ret && i < json_object_array_length(ifs); i++) {
			if (!json_object_object_get_ex(json_object_array_get_idx(ifs, i),
						       "name", &v))
				continue;
			ret = add_iface(s, &cap, ctl, json_object_get_string(v),
					err, len);
		}
	}
	json_object_put(rst);
	json_object_put(rsta);
	rfs_ctl_close(ctl);
	if (ret)
		rfs_top_sample_free(s);
	return ret;
}
