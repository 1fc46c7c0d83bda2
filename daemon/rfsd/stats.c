// SPDX-License-Identifier: GPL-2.0
/* The stats command: rfs_ctrs' counters (rfs_prom.h) in their order, per
 * CPU and in total, summed over every interface or of one. */
#include <stdlib.h>

#include "commands.h"
#include "rfs_prom.h"
#include "rfsd.h"

static __u64 *ctr(void *base, size_t k)
{
	return (__u64 *)((char *)base + rfs_ctrs[k].off);
}

static struct json_object *ctrs_json(struct json_object *o,
				     struct rfs_cpu_ctrs *v)
{
	size_t k;

	for (k = 0; k < rfs_n_ctrs; k++)
		if (v->have_kthread || rfs_ctrs[k].kind < RFS_CTR_KTHREAD)
			rfsd_add(o, rfs_ctrs[k].key,
				 json_object_new_uint64(*ctr(v, k)));
	return o;
}

struct json_object *rfsd_cmd_stats(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   const struct rfsd_req *r)
{
	int nr = x->dp->nr_cpus, cpu, e = 0;
	struct json_object *reply = NULL, *o, *per;
	struct rfs_cpu_ctrs *pc, tot = {};
	struct rfs_if_stats *one;
	struct rfs_global_stats *gs;
	struct rfs_cpu_queue *qs = NULL;
	struct rfsd_kthread_wait kw;
	struct rfs_if *only = NULL;
	__u64 *backlog;
	size_t i, k;

	if (r->iface && !(only = rfsd_find_if(x, "stats", r->iface, &reply)))
		return reply;
	pc = calloc(nr, sizeof(*pc));
	one = calloc(nr, sizeof(*one));
	gs = calloc(nr, sizeof(*gs));
	backlog = calloc(nr, sizeof(*backlog));
	if (!pc || !one || !gs || !backlog) {
		reply = rfsd_reply_err(ENOMEM, "stats: out of memory");
		goto out;
	}
	for (i = 0; i < x->dp->n_ifs; i++) {
		struct rfs_if *ifc = x->dp->ifs[i];

		if (only && ifc != only)
			continue;
		e = rfs_if_read_stats(ifc, one);
		if (e) {
			reply = rfsd_reply_err(e, "stats %s: can't read counters: %s",
					       ifc->name, strerror(-e));
			goto out;
		}
		for (cpu = 0; cpu < nr; cpu++)
			for (k = 0; k < rfs_n_ctrs; k++)
				if (rfs_ctrs[k].kind == RFS_CTR_IF)
					*ctr(&pc[cpu], k) += *ctr(&one[cpu], k);
	}
	qs = rfs_dp_queues(x->dp);
	e = !qs ? -errno : rfs_dp_read_gstats(x->dp, gs) ?:
			   rfs_dp_read_backlog(x->dp, backlog);
	if (e) {
		reply = rfsd_reply_err(e, "stats: can't read datapath counters: %s",
				       strerror(-e));
		goto out;
	}

	per = json_object_new_array();
	for (cpu = 0; cpu < nr; cpu++) {
		struct rfs_cpu_ctrs *v = &pc[cpu];

		v->g = gs[cpu];
		/* dequeued is the target's (its cpumap program counts it in
		 * its own queue slot); ring drops are counted on the RX CPU
		 * whose flush found the ring full */
		v->g.dequeued = qs[cpu].dequeued;
		v->k.backlog = backlog[cpu];
		/* the kernel's, not the datapath's: absent when unknown (no
		 * kthread yet, or its PID is no longer it), never 0 */
		if (qs[cpu].kthread_pid && x->ksched &&
		    !rfsd_ksched_wait(x->ksched, cpu, qs[cpu].kthread_pid, &kw)) {
			v->k.kthread_wait_ns = kw.wait_ns;
			v->k.kthread_runs = kw.runs;
			v->have_kthread = true;
		}
		o = json_object_new_object();
		rfsd_add(o, "cpu", rfsd_jint(cpu));
		json_object_array_add(per, ctrs_json(o, v));
		for (k = 0; k < rfs_n_ctrs; k++)
			*ctr(&tot, k) += *ctr(v, k);
		tot.have_kthread |= v->have_kthread;
	}

	o = json_object_new_object();
	rfsd_add(o, "interface", rfsd_jstr(only ? only->name : NULL));
	rfsd_add(o, "total", ctrs_json(json_object_new_object(), &tot));
	rfsd_add(o, "per_cpu", per);
	reply = rfsd_reply_ok(o);
out:
	free(pc);
	free(one);
	free(gs);
	free(qs);
	free(backlog);
	return reply;
}
