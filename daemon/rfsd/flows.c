// SPDX-License-Identifier: GPL-2.0
/*
 * The flows command: a sampler thread counts each interface's flows for
 * the interval while the loop goes on; flows.h says how the datapath is
 * lent to it.
 */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "flows.h"
#include "log.h"

#define RFSD_FLOWS_LIMIT	20
#define RFSD_FLOWS_MS		500
#define RFSD_FLOWS_MS_MAX	10000

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

enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd_cmd_ctx *x, struct rfsd_client *c,
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

	if (rfsd_arg_iface(req, false, &name, reply) < 0 ||
	    rfsd_arg_int(req, "limit", false, 1, INT32_MAX, &limit, reply) < 0 ||
	    rfsd_arg_int(req, "interval_ms", false, 1, RFSD_FLOWS_MS_MAX, &ms,
			 reply) < 0)
		return RFSD_CMD_REPLY;
	if (name && !(only = rfsd_find_if(x, "flows", name, reply)))
		return RFSD_CMD_REPLY;
	n = only ? 1 : rfs_dp_if_count(x->dp);
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
	j->dp = x->dp;
	j->efd = x->sampler->efd;
	j->client = c;
	j->ms = ms;
	/* an interface has at most RFS_FLOW_HITS sampled flows */
	j->limit = limit > RFS_FLOW_HITS ? RFS_FLOW_HITS : limit;
	for (i = 0; i < n; i++) {
		j->ifs[i] = only ? only : rfs_dp_if_at(x->dp, i);
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
	x->sampler->job = j;
	x->sampler->busy = true;
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
		json_object_object_add(f, "frames",
				       json_object_new_uint64(s->frames));
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

static void job_reap(struct rfsd_sampler *s)
{
	__u64 v;

	pthread_join(s->job->thread, NULL);
	if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		pr_debug("can't read sampler eventfd: %s\n", strerror(errno));
}

bool rfsd_sampler_done(struct rfsd_sampler *s, struct rfsd_client **c,
		       struct json_object **reply)
{
	struct rfsd_flows_job *j = s->job;

	*c = NULL;
	*reply = NULL;
	if (!j) {
		__u64 v;

		if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			pr_debug("can't read sampler eventfd: %s\n", strerror(errno));
		return false;
	}
	job_reap(s);
	s->job = NULL;
	s->busy = false;
	*c = j->client;
	if (*c)
		*reply = flows_reply(j);
	job_free(j);
	return true;
}

void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c)
{
	if (s->job && s->job->client == c)
		s->job->client = NULL;
}

void rfsd_sampler_cancel(struct rfsd_sampler *s)
{
	if (!s->job)
		return;
	pr_info("waiting for the flow sampler to finish\n");
	/* at most the window of the interface it is sampling now */
	__atomic_store_n(&s->job->cancel, 1, __ATOMIC_RELAXED);
	job_reap(s);
	job_free(s->job);
	s->job = NULL;
	s->busy = false;
}
