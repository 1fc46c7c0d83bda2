// SPDX-License-Identifier: GPL-2.0
/*
 * The stats command: every interface's per-CPU counters summed (or one
 * interface's), the datapath's own, per CPU and in total, and how long
 * each CPU's cpumap kthread waited for its CPU (the kernel's count).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "ksched.h"

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
	rfsd_add(o, key, json_object_new_uint64(v));
}

struct json_object *rfsd_cmd_stats(struct rfsd_cmd_ctx *x,
				   struct rfsd_client *c,
				   const struct rfsd_req *r)
{
	int nr = x->dp->env.nr_cpus, cpu, e = 0;
	struct json_object *reply = NULL, *o, *total, *per;
	struct rfs_if_stats *sum = NULL, *one = NULL;
	struct rfs_global_stats *gs = NULL, gtot = {};
	struct rfs_cpu_queue *qs = NULL;
	__u64 *backlog = NULL, btot = 0;
	struct rfsd_kthread_wait kw, kwtot = {};
	bool have_kw = false;
	struct rfs_if *only = NULL;
	size_t i, k;

	if (r->iface && !(only = rfsd_find_if(x, "stats", r->iface, &reply)))
		return reply;
	sum = calloc(nr, sizeof(*sum));
	one = calloc(nr, sizeof(*one));
	gs = calloc(nr, sizeof(*gs));
	qs = calloc(nr, sizeof(*qs));
	backlog = calloc(nr, sizeof(*backlog));
	if (!sum || !one || !gs || !qs || !backlog) {
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
			for (k = 0; k < N_IF_CTRS; k++)
				*ctr(&sum[cpu], &if_ctrs[k]) +=
					*ctr(&one[cpu], &if_ctrs[k]);
	}
	e = rfs_dp_read_gstats(x->dp, gs) ?: rfs_dp_read_queues(x->dp, qs) ?:
	    rfs_dp_read_backlog(x->dp, backlog);
	if (e) {
		reply = rfsd_reply_err(e, "stats: can't read datapath counters: %s",
				       strerror(-e));
		goto out;
	}

	total = json_object_new_object();
	per = json_object_new_array();
	for (cpu = 0; cpu < nr; cpu++) {
		struct json_object *pc = json_object_new_object();

		rfsd_add(pc, "cpu", rfsd_jint(cpu));
		for (k = 0; k < N_IF_CTRS; k++)
			add_u64(pc, if_ctrs[k].name, *ctr(&sum[cpu], &if_ctrs[k]));
		/* dequeued is the target's (its cpumap program counts it in
		 * its own queue slot); ring drops are counted on the RX CPU
		 * whose flush found the ring full */
		gs[cpu].dequeued = qs[cpu].dequeued;
		for (k = 0; k < N_G_CTRS; k++)
			add_u64(pc, g_ctrs[k].name, *ctr(&gs[cpu], &g_ctrs[k]));
		/* a gauge, not a counter: frames in this CPU's ring now */
		add_u64(pc, "backlog", backlog[cpu]);
		btot += backlog[cpu];
		/* the kernel's, not the datapath's: absent when unknown (no
		 * kthread yet, or its PID is no longer it), never 0 */
		if (qs[cpu].kthread_pid && x->ksched &&
		    !rfsd_ksched_wait(x->ksched, cpu, qs[cpu].kthread_pid, &kw)) {
			add_u64(pc, "kthread_wait_ns", kw.wait_ns);
			add_u64(pc, "kthread_runs", kw.runs);
			kwtot.wait_ns += kw.wait_ns;
			kwtot.runs += kw.runs;
			have_kw = true;
		}
		json_object_array_add(per, pc);
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
	add_u64(total, "backlog", btot);
	if (have_kw) {
		add_u64(total, "kthread_wait_ns", kwtot.wait_ns);
		add_u64(total, "kthread_runs", kwtot.runs);
	}

	o = json_object_new_object();
	rfsd_add(o, "interface", rfsd_jstr(only ? only->name : NULL));
	rfsd_add(o, "total", total);
	rfsd_add(o, "per_cpu", per);
	reply = rfsd_reply_ok(o);
out:
	free(sum);
	free(one);
	free(gs);
	free(qs);
	free(backlog);
	return reply;
}
