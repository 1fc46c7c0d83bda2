// SPDX-License-Identifier: GPL-2.0
/* The flows command: count each interface's flows, answer when the window
 * is over (commands.h says how nothing waits meanwhile). */
#include <stdlib.h>
#include <sys/timerfd.h>

#include "commands.h"
#include "log.h"

struct rfsd_flow {
	const char *iface; /* its rfs_if's, while the reply is built */
	struct rfs_flow_sample s;
};

struct rfsd_flows_job {
	struct rfsd_flows_job *next;
	struct rfsd_client *client;	/* NULL: it left */
	long long end_ns;		/* CLOCK_MONOTONIC */
	size_t limit;
	size_t n_ifs;
	int ifindex[];			/* found again at the end */
};

static int flow_cmp(const void *a, const void *b)
{
	const struct rfsd_flow *x = a, *y = b;

	if (x->s.frames != y->s.frames)
		return x->s.frames < y->s.frames ? 1 : -1;
	return x->s.hash < y->s.hash ? -1 : x->s.hash > y->s.hash;
}

/* The timer at the soonest end, or off. */
static void rearm(struct rfsd_sampler *s)
{
	struct itimerspec its = {};
	struct rfsd_flows_job *j;
	long long end = 0;

	for (j = s->jobs; j; j = j->next)
		if (!end || j->end_ns < end)
			end = j->end_ns;
	its.it_value.tv_sec = end / 1000000000;
	its.it_value.tv_nsec = end % 1000000000;
	if (timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		pr_warn("can't arm the flow sampler's timer: %s\n",
			strerror(errno));
}

/* Stop whatever of j still counts (an interface gone needs nothing). */
static void job_stop(struct rfsd_flows_job *j, struct rfs_dp *dp, size_t n)
{
	struct rfs_if *ifc;
	size_t i;

	for (i = 0; i < n; i++)
		if ((ifc = rfs_dp_if_find_index(dp, j->ifindex[i])))
			rfs_if_sample_stop(ifc);
}

static struct json_object *flows_json(const struct rfsd_flow *flows,
				      size_t n)
{
	struct json_object *o = json_object_new_object(), *a, *f;
	size_t i;

	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		const struct rfs_flow_sample *s = &flows[i].s;

		f = json_object_new_object();
		rfsd_add(f, "iface", rfsd_jstr(flows[i].iface));
		rfsd_add(f, "hash", rfsd_jhex32(s->hash));
		rfsd_add(f, "frames", json_object_new_uint64(s->frames));
		rfsd_add(f, "rx_queue", rfsd_jint(s->rx_queue));
		rfsd_add(f, "desired_cpu", rfsd_jcpu(s->desired_cpu));
		rfsd_add(f, "current_cpu", rfsd_jcpu(s->current_cpu));
		rfsd_add(f, "path", rfsd_jstr(s->current_cpu == RFS_NO_CPU ?
					      "none" : s->local ? "local" :
					      "cpumap"));
		json_object_array_add(a, f);
	}
	rfsd_add(o, "flows", a);
	return rfsd_reply_ok(o);
}

enum rfsd_cmd_rc rfsd_cmd_flows(struct rfsd_cmd_ctx *x, struct rfsd_client *c,
				const struct rfsd_req *r,
				struct json_object **reply)
{
	char err[RFS_ERR_LEN] = "";
	struct rfsd_flows_job *j;
	struct rfs_if *only = NULL;
	size_t i, n;
	int e;

	if (r->iface && !(only = rfsd_find_if(x, "flows", r->iface, reply)))
		return RFSD_CMD_REPLY;
	n = only ? 1 : x->dp->n_ifs;
	if (!n) {
		*reply = flows_json(NULL, 0);
		return RFSD_CMD_REPLY;
	}
	j = calloc(1, sizeof(*j) + n * sizeof(j->ifindex[0]));
	if (!j) {
		*reply = rfsd_reply_err(ENOMEM, "flows: out of memory");
		return RFSD_CMD_REPLY;
	}
	for (i = 0; i < n; i++) {
		struct rfs_if *ifc = only ? only : x->dp->ifs[i];

		j->ifindex[i] = ifc->ifindex;
		e = rfs_if_sample_start(x->dp, ifc, err);
		if (e) {
			job_stop(j, x->dp, i);
			free(j);
			/* -EBUSY: another request counts there: after it */
			if (e == -EBUSY)
				return RFSD_CMD_WAIT;
			*reply = rfsd_reply_dp_err(e, err, "flows");
			return RFSD_CMD_REPLY;
		}
	}
	j->n_ifs = n;
	j->client = c;
	/* an interface has at most RFS_FLOW_HITS sampled flows */
	j->limit = r->limit > RFS_FLOW_HITS ? RFS_FLOW_HITS : r->limit;
	j->end_ns = rfs_mono_ns() + r->interval_ms * 1000000;
	j->next = x->sampler->jobs;
	x->sampler->jobs = j;
	rearm(x->sampler);
	pr_debug("sampling flows on %zu interface(s) for %lld ms\n", n,
		 r->interval_ms);
	return RFSD_CMD_STARTED;
}

/* Stop j's counts and read them: the reply. */
static struct json_object *job_collect(struct rfsd_flows_job *j,
				       struct rfs_dp *dp)
{
	/* each interface has at most limit */
	struct rfsd_flow *flows = calloc(j->n_ifs * j->limit, sizeof(*flows));
	struct json_object *reply;
	char err[RFS_ERR_LEN] = "";
	size_t n_flows = 0, i, k;
	int e = flows ? 0 : -ENOMEM;

	for (i = 0; i < j->n_ifs; i++) {
		struct rfs_if *ifc = rfs_dp_if_find_index(dp, j->ifindex[i]);
		struct rfs_flow_sample *s = NULL;
		size_t n = 0;

		if (!ifc)
			continue;	/* detached or gone meanwhile */
		if (e) {
			rfs_if_sample_stop(ifc);
			continue;
		}
		e = rfs_if_sample_collect(dp, ifc, j->limit, &s, &n, err);
		for (k = 0; !e && k < n; k++)
			flows[n_flows++] =
				(struct rfsd_flow){ ifc->name, s[k] };
		free(s);
	}
	if (e) {
		reply = rfsd_reply_dp_err(e, err, "flows");
	} else {
		qsort(flows, n_flows, sizeof(*flows), flow_cmp);
		reply = flows_json(flows, n_flows > j->limit ? j->limit : n_flows);
	}
	free(flows);
	return reply;
}

bool rfsd_sampler_done(struct rfsd_sampler *s, struct rfs_dp *dp,
		       struct rfsd_client **c, struct json_object **reply)
{
	struct rfsd_flows_job **pj, *j;
	long long now = rfs_mono_ns();

	*c = NULL;
	*reply = NULL;
	for (pj = &s->jobs; (j = *pj); pj = &j->next)
		if (now >= j->end_ns)
			break;
	if (!j) {
		rearm(s);
		return false;
	}
	*pj = j->next;
	*c = j->client;
	if (*c)
		*reply = job_collect(j, dp);
	else
		job_stop(j, dp, j->n_ifs);
	free(j);
	return true;
}

void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c)
{
	struct rfsd_flows_job *j;

	for (j = s->jobs; j; j = j->next)
		if (j->client == c)
			j->client = NULL;
}

void rfsd_sampler_cancel(struct rfsd_sampler *s, struct rfs_dp *dp)
{
	struct rfsd_flows_job *j;

	while ((j = s->jobs)) {
		s->jobs = j->next;
		if (dp)
			job_stop(j, dp, j->n_ifs);
		free(j);
	}
}
