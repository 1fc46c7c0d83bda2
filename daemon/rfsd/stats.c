// SPDX-License-Identifier: GPL-2.0
/*
 * The stats and flows commands.
 *
 * flows samples for up to 10 s per interface, and rfs_if_sample_flows()
 * blocks for that long; the event loop must not.  So a sampler thread
 * does it while rfsd_dp_busy() keeps every other datapath user waiting
 * (the datapath handle is not shared between threads: it is handed over).
 * The thread writes the job's eventfd when done; the loop then joins it
 * and replies.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "rfsd.h"
#include "server.h"

#define RFSD_FLOWS_LIMIT	20
#define RFSD_FLOWS_MS		500
#define RFSD_FLOWS_MS_MAX	10000

struct rfsd_counter {
	const char *name;
	size_t off;
};

#define IF_CTR(f) { #f, offsetof(struct rfs_if_stats, f) }
static const struct rfsd_counter if_ctrs[] = {
	IF_CTR(seen), IF_CTR(steered), IF_CTR(to_desired), IF_CTR(spread),
	IF_CTR(switches), IF_CTR(held), IF_CTR(pass_not_ip),
	IF_CTR(pass_fragment), IF_CTR(pass_other_proto),
	IF_CTR(pass_truncated), IF_CTR(pass_no_table), IF_CTR(redirect_err),
	IF_CTR(local), IF_CTR(no_meta),
};
#define N_IF_CTRS (sizeof(if_ctrs) / sizeof(if_ctrs[0]))

#define G_CTR(f) { #f, offsetof(struct rfs_global_stats, f) }
static const struct rfsd_counter g_ctrs[] = {
	G_CTR(dequeued), G_CTR(enqueue_drops), G_CTR(sock_records),
	G_CTR(sock_clears), G_CTR(sock_skipped), G_CTR(foreign),
	G_CTR(recv_local), G_CTR(recv_remote),
};
#define N_G_CTRS (sizeof(g_ctrs) / sizeof(g_ctrs[0]))

static __u64 *ctr(void *base, const struct rfsd_counter *c)
{
	return (__u64 *)((char *)base + c->off);
}

static void add_u64(struct json_object *o, const char *key, __u64 v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static int arg_iface(struct json_object *req, const char **name,
		     struct json_object **reply)
{
	int r = rfsd_arg_str(req, "iface", false, name, reply);

	if (!r && (!**name || strlen(*name) >= IF_NAMESIZE)) {
		*reply = rfsd_reply_err(EINVAL,
					"bad request: 'iface' must be an interface name (1..%d characters)",
					IF_NAMESIZE - 1);
		return -EINVAL;
	}
	return r;
}

struct json_object *rfsd_cmd_stats(struct rfsd *d, struct json_object *req)
{
	int nr = rfs_dp_nr_cpus(d->dp), cpu, e = 0;
	struct json_object *reply = NULL, *o, *total, *per;
	struct rfs_if_stats *sum = NULL, *one = NULL;
	struct rfs_global_stats *gs = NULL, gtot = {};
	struct rfs_cpu_queue *qs = NULL;
	struct rfs_if *only = NULL;
	const char *name = NULL;
	size_t i, k;

	if (arg_iface(req, &name, &reply) < 0)
		return reply;
	if (name && !(only = rfsd_find_if(d, "stats", name, &reply)))
		return reply;
	sum = calloc(nr, sizeof(*sum));
	one = calloc(nr, sizeof(*one));
	gs = calloc(nr, sizeof(*gs));
	qs = calloc(nr, sizeof(*qs));
	if (!sum || !one || !gs || !qs) {
		reply = rfsd_reply_err(ENOMEM, "stats: out of memory");
		goto out;
	}
	for (i = 0; i < rfs_dp_if_count(d->dp); i++) {
		struct rfs_if *ifc = rfs_dp_if_at(d->dp, i);

		if (only && ifc != only)
			continue;
		e = rfs_if_read_stats(ifc, one);
		if (e) {
			reply = rfsd_reply_err(e, "stats %s: can't read counters: %s",
					       rfs_if_name(ifc), strerror(-e));
			goto out;
		}
		for (cpu = 0; cpu < nr; cpu++)
			for (k = 0; k < N_IF_CTRS; k++)
				*ctr(&sum[cpu], &if_ctrs[k]) +=
					*ctr(&one[cpu], &if_ctrs[k]);
	}
	e = rfs_dp_read_gstats(d->dp, gs);
	if (!e)
		e = rfs_dp_read_queues(d->dp, qs);
	if (e) {
		reply = rfsd_reply_err(e, "stats: can't read datapath counters: %s",
				       strerror(-e));
		goto out;
	}

	total = json_object_new_object();
	per = json_object_new_array();
	for (cpu = 0; cpu < nr; cpu++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "cpu", json_object_new_int(cpu));
		for (k = 0; k < N_IF_CTRS; k++)
			add_u64(c, if_ctrs[k].name, *ctr(&sum[cpu], &if_ctrs[k]));
		/* dequeued is the target's (its cpumap program counts it in
		 * its own queue slot); ring drops are counted on the RX CPU
		 * whose flush found the ring full */
		gs[cpu].dequeued = qs[cpu].dequeued;
		add_u64(c, "dequeued", gs[cpu].dequeued);
		add_u64(c, "enqueue_drops", gs[cpu].enqueue_drops);
		add_u64(c, "sock_records", gs[cpu].sock_records);
		add_u64(c, "sock_clears", gs[cpu].sock_clears);
		add_u64(c, "sock_skipped", gs[cpu].sock_skipped);
		add_u64(c, "foreign", gs[cpu].foreign);
		add_u64(c, "recv_local", gs[cpu].recv_local);
		add_u64(c, "recv_remote", gs[cpu].recv_remote);
		json_object_array_add(per, c);
		for (k = 0; k < N_G_CTRS; k++)
			*ctr(&gtot, &g_ctrs[k]) += *ctr(&gs[cpu], &g_ctrs[k]);
		if (cpu)
			for (k = 0; k < N_IF_CTRS; k++)
				*ctr(&sum[0], &if_ctrs[k]) +=
					*ctr(&sum[cpu], &if_ctrs[k]);
	}
	for (k = 0; k < N_IF_CTRS; k++)
		add_u64(total, if_ctrs[k].name, *ctr(&sum[0], &if_ctrs[k]));
	for (k = 0; k < N_G_CTRS; k++)
		add_u64(total, g_ctrs[k].name, *ctr(&gtot, &g_ctrs[k]));

	o = json_object_new_object();
	json_object_object_add(o, "interface",
			       only ? json_object_new_string(rfs_if_name(only)) : NULL);
	json_object_object_add(o, "total", total);
	json_object_object_add(o, "per_cpu", per);
	reply = rfsd_reply_ok(o);
out:
	free(sum);
	free(one);
	free(gs);
	free(qs);
	return reply;
}

struct rfsd_flow {
	char iface[IF_NAMESIZE];
	struct rfs_flow_sample s;
};

struct rfsd_flows_job {
	pthread_t thread;
	struct rfs_dp *dp;		/* the thread's while it runs */
	int efd;
	struct rfsd_client *client;	/* NULL: it left */
	unsigned int ms;
	size_t limit;
	size_t n_ifs;
	struct rfs_if **ifs;
	char (*names)[IF_NAMESIZE];
	int cancel;		/* atomic: stop after this interface */
	/* the result */
	struct rfsd_flow *flows;
	size_t n_flows;
	int ret;
	char err[RFS_ERR_LEN];
};

static int flow_cmp(const void *a, const void *b)
{
	const struct rfsd_flow *x = a, *y = b;

	if (x->s.frames != y->s.frames)
		return x->s.frames < y->s.frames ? 1 : -1;
	return x->s.hash < y->s.hash ? -1 : x->s.hash > y->s.hash;
}

static void *flows_thread(void *arg)
{
	struct rfsd_flows_job *j = arg;
	__u64 one = 1;
	size_t i, k;

	for (i = 0; i < j->n_ifs && !j->ret; i++) {
		struct rfs_flow_sample *s = NULL;
		struct rfsd_flow *f;
		size_t n = 0;

		if (__atomic_load_n(&j->cancel, __ATOMIC_RELAXED))
			break;
		j->ret = rfs_if_sample_flows(j->dp, j->ifs[i], j->ms, j->limit,
					     &s, &n, j->err);
		if (j->ret)
			break;
		if (!n) {
			free(s);
			continue;
		}
		f = realloc(j->flows, (j->n_flows + n) * sizeof(*f));
		if (!f) {
			j->ret = -ENOMEM;
			snprintf(j->err, sizeof(j->err), "flows: out of memory");
			free(s);
			break;
		}
		j->flows = f;
		for (k = 0; k < n; k++) {
			memcpy(f[j->n_flows].iface, j->names[i], IF_NAMESIZE);
			f[j->n_flows++].s = s[k];
		}
		free(s);
	}
	if (!j->ret && j->n_flows) {
		qsort(j->flows, j->n_flows, sizeof(*j->flows), flow_cmp);
		if (j->n_flows > j->limit)
			j->n_flows = j->limit;
	}
	if (write(j->efd, &one, sizeof(one)) != sizeof(one))
		pr_warn("can't wake rfsd up after sampling: %s\n", strerror(errno));
	return NULL;
}

static void job_free(struct rfsd_flows_job *j)
{
	free(j->ifs);
	free(j->names);
	free(j->flows);
	free(j);
}

enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd *d, struct rfsd_client *c,
				struct json_object *req,
				struct json_object **reply)
{
	long long limit = RFSD_FLOWS_LIMIT, ms = RFSD_FLOWS_MS;
	struct rfsd_flows_job *j;
	sigset_t all, old;
	const char *name = NULL;
	struct rfs_if *only = NULL;
	size_t i, n;
	int e;

	if (arg_iface(req, &name, reply) < 0 ||
	    rfsd_arg_int(req, "limit", false, 1, INT32_MAX, &limit, reply) < 0 ||
	    rfsd_arg_int(req, "interval_ms", false, 1, RFSD_FLOWS_MS_MAX, &ms,
			 reply) < 0)
		return RFSD_CMD_REPLY;
	if (name && !(only = rfsd_find_if(d, "flows", name, reply)))
		return RFSD_CMD_REPLY;
	n = only ? 1 : rfs_dp_if_count(d->dp);
	if (!n) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "flows", json_object_new_array());
		*reply = rfsd_reply_ok(o);
		return RFSD_CMD_REPLY;
	}
	j = calloc(1, sizeof(*j));
	if (j) {
		j->ifs = calloc(n, sizeof(*j->ifs));
		j->names = calloc(n, sizeof(*j->names));
	}
	if (!j || !j->ifs || !j->names) {
		if (j)
			job_free(j);
		*reply = rfsd_reply_err(ENOMEM, "flows: out of memory");
		return RFSD_CMD_REPLY;
	}
	j->dp = d->dp;
	j->efd = d->job_efd;
	j->client = c;
	j->ms = ms;
	/* an interface has at most RFS_FLOW_HITS sampled flows */
	j->limit = limit > RFS_FLOW_HITS ? RFS_FLOW_HITS : limit;
	for (i = 0; i < n; i++) {
		j->ifs[i] = only ? only : rfs_dp_if_at(d->dp, i);
		snprintf(j->names[i], IF_NAMESIZE, "%s", rfs_if_name(j->ifs[i]));
	}
	j->n_ifs = n;
	/* signals stay with the main thread's signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&j->thread, NULL, flows_thread, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		job_free(j);
		*reply = rfsd_reply_err(e, "flows: can't start the sampler: %s",
					strerror(e));
		return RFSD_CMD_REPLY;
	}
	d->job = j;
	pr_debug("sampling flows on %zu interface(s) for %lld ms\n", n, ms);
	return RFSD_CMD_STARTED;
}

static struct json_object *cpu_or_null(__u32 cpu)
{
	return cpu >= RFS_MAX_CPUS ? NULL : json_object_new_int64(cpu);
}

static struct json_object *flows_reply(struct rfsd_flows_job *j)
{
	struct json_object *o, *a;
	char hash[16];
	size_t i;

	if (j->ret)
		return rfsd_reply_dp_err(j->ret, j->err, "flows");
	a = json_object_new_array();
	for (i = 0; i < j->n_flows; i++) {
		const struct rfs_flow_sample *s = &j->flows[i].s;
		struct json_object *f = json_object_new_object();

		snprintf(hash, sizeof(hash), "0x%08x", s->hash);
		json_object_object_add(f, "iface",
				       json_object_new_string(j->flows[i].iface));
		json_object_object_add(f, "hash", json_object_new_string(hash));
		add_u64(f, "frames", s->frames);
		json_object_object_add(f, "rx_queue",
				       json_object_new_int64(s->rx_queue));
		json_object_object_add(f, "desired_cpu",
				       cpu_or_null(s->desired_cpu));
		json_object_object_add(f, "current_cpu",
				       cpu_or_null(s->current_cpu));
		json_object_object_add(f, "path",
				       json_object_new_string(
					       s->current_cpu == RFS_NO_CPU ? "none" :
					       s->local ? "local" : "cpumap"));
		json_object_array_add(a, f);
	}
	o = json_object_new_object();
	json_object_object_add(o, "flows", a);
	return rfsd_reply_ok(o);
}

static void job_reap(struct rfsd *d)
{
	__u64 v;

	pthread_join(d->job->thread, NULL);
	if (read(d->job_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		pr_debug("can't read sampler eventfd: %s\n", strerror(errno));
}

void rfsd_flows_done(struct rfsd *d)
{
	struct rfsd_flows_job *j = d->job;
	struct rfsd_client *c;

	if (!j) {
		__u64 v;

		if (read(d->job_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			pr_debug("can't read sampler eventfd: %s\n", strerror(errno));
		return;
	}
	job_reap(d);
	d->job = NULL;
	c = j->client;
	if (c)
		rfsd_server_reply(d, c, flows_reply(j));
	job_free(j);
	rfsd_dp_released(d);
}

void rfsd_flows_client_gone(struct rfsd *d, struct rfsd_client *c)
{
	if (d->job && d->job->client == c)
		d->job->client = NULL;
}

void rfsd_flows_cancel(struct rfsd *d)
{
	if (!d->job)
		return;
	pr_info("waiting for the flow sampler to finish\n");
	/* at most the window of the interface it is sampling now */
	__atomic_store_n(&d->job->cancel, 1, __ATOMIC_RELAXED);
	job_reap(d);
	job_free(d->job);
	d->job = NULL;
}
