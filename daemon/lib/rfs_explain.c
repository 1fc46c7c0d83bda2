// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include <bpf/bpf.h>

#include "log.h"
#include "rfs_dp.h"
#include "rfs_order.h"

/* rfs_xdp: a flow not seen since a resize is known to the old table */
static void rfs_explain_pick_entry(struct rfs_explain_queue *q)
{
	q->cur_from_prev = !(q->entry.flags & RFS_DEV_FLOW_VALID) &&
			   q->have_prev;
	q->cur = q->cur_from_prev ? q->prev_entry : q->entry;
}

static enum rfs_explain_action action_of(const struct rfs_explain_in *in,
					 const struct rfs_choice *c)
{
	if (c->verdict == RFS_V_NONE)
		return RFS_XA_PASS_NO_TABLE;
	if (c->local)
		return RFS_XA_LOCAL;
	if (!rfs_cpu_in(in->in_cpumap, c->cpu))
		return RFS_XA_REDIRECT_ERR;
	return RFS_XA_REDIRECT;
}

void rfs_explain_case(const struct rfs_explain_in *in,
		      const struct rfs_explain_queue *q, __u32 rx_cpu,
		      struct rfs_explain_case *out)
{
	__u32 hash = rfs_explain_hash(in);
	struct rfs_flow_state st = {
		.hash = hash,
		.desired_cpu = rfs_explain_desired(in, hash),
		.rx_cpu = rx_cpu,
		.cur = q->cur,
	};

	memset(out, 0, sizeof(*out));
	out->rx_cpu = rx_cpu;
	if (!in->steerable) {
		out->action = RFS_XA_PASS_PROTO;
		return;
	}
	/* no table: RFS_V_NONE, as rfs_xdp passes the frame up */
	out->first.cpu = RFS_NO_CPU;
	if (q->have_table)
		out->first = rfs_pick_cpu(&st, &in->cfg);
	out->result = out->then = out->first;
	if (out->first.verdict == RFS_V_HELD) {
		if (st.cur.flags & RFS_DEV_FLOW_LOCAL) {
			out->drain = RFS_XD_LOCAL;
			out->age_known = in->have_jiffies;
			out->age = (__s32)((__u32)in->jiffies - st.cur.last);
			out->drained = !in->have_jiffies ? -1 :
				rfs_local_drained(&st.cur, in->jiffies,
						  in->cfg.local_drain_jiffies);
		} else if (!q->have_track || !q->have_cpu_queue) {
			out->drain = RFS_XD_NO_STATE;
		} else {
			out->drain = RFS_XD_REMOTE;
			out->proven = rfs_remote_drained(&q->track, st.cur.last,
							 q->q.delivered, 0);
			out->if_asleep = rfs_remote_drained(&q->track,
							    st.cur.last,
							    q->q.delivered, 1);
			out->drained = out->proven ? 1 : out->if_asleep ? -1 : 0;
		}
		st.cur_drained = 1;
		out->then = rfs_pick_cpu(&st, &in->cfg);
		if (out->drained == 1)
			out->result = out->then;
	}
	out->action = action_of(in, &out->result);
	out->action_drained = action_of(in, &out->then);
}

const char *rfs_explain_verdict_name(__u8 verdict)
{
	static const char *const names[] = {
		[RFS_V_NONE] = "none", [RFS_V_NEW] = "new",
		[RFS_V_KEEP] = "keep", [RFS_V_SWITCH] = "switch",
		[RFS_V_FORCED] = "forced", [RFS_V_HELD] = "held",
	};

	return verdict < sizeof(names) / sizeof(names[0]) && names[verdict] ?
	       names[verdict] : "?";
}

const char *rfs_explain_action_name(enum rfs_explain_action a)
{
	return a == RFS_XA_LOCAL ? "local" : a == RFS_XA_REDIRECT ? "cpumap" :
	       "pass";
}

const char *rfs_explain_next(const struct rfs_explain_case *c)
{
	if (c->action == RFS_XA_PASS_PROTO || c->action == RFS_XA_PASS_NO_TABLE)
		return "passed";
	if (c->first.verdict != RFS_V_HELD)
		return rfs_explain_verdict_name(c->first.verdict);
	return c->drained == 1 ? "switch" : c->drained < 0 ? "held_or_switch" :
	       "held";
}

#define path_of(local)	((local) ? "local path" : "cpumap")

/* Why the target is what it is. */
static void put_target(FILE *f, const struct rfs_choice *c, __u32 desired)
{
	if (!c->spread)
		fprintf(f, "its application reads on CPU %u", desired);
	else if (desired == RFS_NO_CPU)
		fprintf(f, "no socket recorded a CPU for it (no read yet, or its sock slot is empty or another flow's), so it is spread by hash");
	else
		fprintf(f, "its application reads on CPU %u, which this interface may not steer to, so it is spread by hash",
			desired);
}

/* What the drain test looked at. */
static void put_drain(FILE *f, const struct rfs_explain_in *in,
		      const struct rfs_explain_queue *q,
		      const struct rfs_explain_case *c)
{
	static const char *const names[] = { "last", "prev", "jiffy1",
					     "jiffy2", "done" };
	const __u64 marks[] = { q->track.last, q->track.prev, q->track.jiffy1,
				q->track.jiffy2, q->track.done };
	const struct rfs_dev_flow *cur = &q->cur;
	int i;

	switch (c->drain) {
	case RFS_XD_NOT_ASKED:
		return;
	case RFS_XD_LOCAL:
		if (c->age_known)
			fprintf(f, "its last frame was passed up locally at jiffy %u, %d jiffies ago; it may leave after %u (rfs_local_drained)",
				cur->last, c->age, in->cfg.local_drain_jiffies);
		else
			fprintf(f, "its last frame was passed up locally at jiffy %u; it may leave %u jiffies after that, and jiffies can't be read here: the program reads them at the frame",
				cur->last, in->cfg.local_drain_jiffies);
		return;
	case RFS_XD_NO_STATE:
		fprintf(f, "no ordering state for RX CPU %u -> CPU %u can be read, which the program takes as not drained",
			cur->rx_cpu, cur->cpu);
		return;
	case RFS_XD_REMOTE:
		break;
	}
	/* a bare frame names the marked frame that will cover it
	 * (rfs_order.h, LAZY MARKS) */
	if (cur->flags & RFS_DEV_FLOW_BARE)
		fprintf(f, "its last frame went bare: the next marked frame from RX CPU %u to CPU %u, seq %u, covers it (the flow's own next frame, held, unless another flow's comes first); ",
			cur->rx_cpu, cur->cpu, cur->last);
	else
		fprintf(f, "its last frame is seq %u from RX CPU %u to CPU %u; ",
			cur->last, cur->rx_cpu, cur->cpu);
	fprintf(f, "CPU %u's marks for RX CPU %u:", cur->cpu, cur->rx_cpu);
	if (!q->track.last)
		fprintf(f, " none");
	for (i = 0; i < 5; i++)
		if (marks[i])
			fprintf(f, " %s %u@%u", names[i], rfs_mark_seq(marks[i]),
				rfs_mark_epoch(marks[i]));
	fprintf(f, " (seq@epoch), delivered epoch %u", q->q.delivered);
	if (c->proven) {
		fprintf(f, ": a mark covering it is in a delivered epoch (rfs_remote_drained)");
		return;
	}
	if (!c->if_asleep) {
		if (q->track.last &&
		    !rfs_seq_after_eq(rfs_mark_seq(q->track.last), cur->last))
			fprintf(f, ": it is not dequeued yet (still in CPU %u's ring or RX CPU %u's bulk queue, or lost on a full ring and waiting for the next frame to pass it)",
				cur->cpu, cur->rx_cpu);
		else
			fprintf(f, ": not proven delivered");
		return;
	}
	fprintf(f, ": dequeued, not proven delivered; the program then reads CPU %u's cpumap kthread state, and asleep proves it (it sleeps only with an empty ring after a full GRO flush). That state is only known in the kernel at the frame; ",
		cur->cpu);
	if (q->kthread_asleep_now < 0)
		fprintf(f, "it can't be read here");
	else
		fprintf(f, "right now /proc shows it %s",
			q->kthread_asleep_now ? "asleep" : "running");
}

static void put_action(FILE *f, const struct rfs_choice *ch,
		       enum rfs_explain_action a, __u32 rx_cpu)
{
	switch (a) {
	case RFS_XA_PASS_PROTO:
	case RFS_XA_PASS_NO_TABLE:
		fprintf(f, "passed up on CPU %u", rx_cpu);
		break;
	case RFS_XA_LOCAL:
		fprintf(f, "passed up on CPU %u (local path: it is the RX CPU)",
			rx_cpu);
		break;
	case RFS_XA_REDIRECT:
		fprintf(f, "redirected to CPU %u through the cpumap", ch->cpu);
		break;
	case RFS_XA_REDIRECT_ERR:
		fprintf(f, "meant for CPU %u, which has no cpumap entry: passed up on CPU %u, its state untouched (redirect_err)",
			ch->cpu, rx_cpu);
		break;
	}
}

static void say(FILE *f, const struct rfs_explain_in *in,
		const struct rfs_explain_queue *q,
		const struct rfs_explain_case *c)
{
	__u32 desired = rfs_explain_desired(in, rfs_explain_hash(in));
	const struct rfs_choice *r = &c->result, *first = &c->first;
	bool cur_local = q->cur.flags & RFS_DEV_FLOW_LOCAL;
	const char *pass = NULL;

	if (c->action == RFS_XA_PASS_PROTO)
		pass = "not TCP or UDP with ports, xdp-rfs does not steer it; it goes";
	else if (!q->have_table)
		pass = "the interface has no usable dev flow table;";
	else if (r->verdict == RFS_V_NONE)
		pass = "no CPU is allowed on this interface;";
	if (pass) {
		fprintf(f, "passed: %s up the stack on CPU %u (%s)", pass,
			c->rx_cpu, c->action == RFS_XA_PASS_PROTO ?
			"pass_other_proto" : "pass_no_table");
		return;
	}
	/* a switch at the first call is noguard's: cur_drained is 0 there */
	fprintf(f, "%s%s: ", c->drained < 0 ? "held" : rfs_explain_next(c),
		first->verdict == RFS_V_SWITCH ? " (noguard: this interface moves flows at once and may reorder)" : "");
	put_action(f, r, c->action, c->rx_cpu);
	switch (first->verdict) {
	case RFS_V_NEW:
		fprintf(f, ". The flow has no entry on this queue; ");
		put_target(f, first, desired);
		break;
	case RFS_V_FORCED:
		fprintf(f, ". Its current CPU %u is gone from the cpumap, so nothing there is waited for; ",
			q->cur.cpu);
		put_target(f, first, desired);
		break;
	case RFS_V_KEEP:
		if (!first->spread)
			fprintf(f, ". It already goes where its application reads (CPU %u)",
				desired);
		else if (desired == RFS_NO_CPU && cur_local && !first->local)
			fprintf(f, ". No CPU is allowed and it stays on its local path");
		else
			fprintf(f, ". It has no allowed desired CPU (%s) and CPU %u is still allowed: a flow is not moved for a hash hint",
				desired == RFS_NO_CPU ? "no socket recorded one" :
				"its application's CPU is not in the set",
				q->cur.cpu);
		break;
	case RFS_V_SWITCH:
		fprintf(f, "; ");
		put_target(f, first, desired);
		break;
	case RFS_V_HELD:
		if (c->drained == 1) {
			fprintf(f, ", leaving CPU %u (%s). It wants to move because ",
				q->cur.cpu, path_of(cur_local));
			put_target(f, &c->then, desired);
			fprintf(f, ", and every frame on its old path is delivered: ");
			put_drain(f, in, q, c);
			break;
		}
		fprintf(f, " (its current CPU, %s), until its old path drains. It wants CPU %u (%s) because ",
			path_of(r->local), c->then.cpu, path_of(c->then.local));
		put_target(f, &c->then, desired);
		fprintf(f, ", but ");
		put_drain(f, in, q, c);
		if (c->drained < 0) {
			fprintf(f, ". If it is drained by then it switches: ");
			put_action(f, &c->then, c->action_drained, c->rx_cpu);
		}
		break;
	}
	if (q->cur_from_prev)
		fprintf(f, " (its state comes from the table before the last resize)");
}

char *rfs_explain_words(const struct rfs_explain_in *in,
			const struct rfs_explain_queue *q,
			const struct rfs_explain_case *c, char *buf,
			size_t len)
{
	FILE *f = len ? fmemopen(buf, len, "w") : NULL;

	if (!f)
		return len ? strcpy(buf, "") : buf;
	buf[0] = '\0';
	say(f, in, q, c);
	fclose(f);
	buf[len - 1] = '\0';	/* fmemopen() leaves a full buffer unended */
	return buf;
}

/* ---- reading the maps ---- */

static bool read_entry(int outer_fd, __u32 slot, __u32 hash, __u32 rxq,
		       __u32 *idx, struct rfs_dev_flow *e)
{
	struct rfs_dev_flow hdr;
	__u32 id, zero = 0;
	bool ok = false;
	int fd;

	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return false;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return false;
	if (!bpf_map_lookup_elem(fd, &zero, &hdr) && rfs_dev_table_ok(&hdr)) {
		*idx = rfs_dev_index(&hdr, hash, rxq);
		/* 0: a queue past the table, steered by no entry */
		ok = *idx && !bpf_map_lookup_elem(fd, idx, e);
	}
	close(fd);
	return ok;
}

/* Marks are read before the kthreads' state, as the program does, so
 * "asleep" is never older than the mark it is shown beside. */
int rfs_if_explain(struct rfs_dp *dp, struct rfs_if *ifc,
		   struct rfs_explain_in *in,
		   struct rfs_explain_queue **out, size_t *n, char *err)
{
	bool idle[RFS_MAX_CPUS], quiet[RFS_MAX_CPUS];
	struct rfs_explain_queue *qs;
	__u32 hash, slot, i;
	struct rfs_tx_seq *tx; /* its size is a multiple of the stride */
	size_t nq = ifc->rx_queues ? ifc->rx_queues : 1;
	int ncpu = 0;

	*out = NULL;
	*n = 0;
	in->g = dp->globals;
	if (rfs_if_read_config(ifc->cfg_fd, &in->cfg))
		return rfs_errf(err, errno, "explain %s: can't read its config: %s",
				ifc->name, strerror(errno));
	memcpy(in->in_cpumap, dp->in_cpumap.bits, sizeof(in->in_cpumap));
	hash = rfs_explain_hash(in);
	slot = rfs_sock_index(hash, in->g.sock_flow_mask);
	in->have_sock = !bpf_map_lookup_elem(dp->sock_flows_fd, &slot,
					     &in->sock_entry);
	qs = calloc(nq, sizeof(*qs));
	if (!qs)
		return rfs_errf(err, ENOMEM, "explain %s: out of memory",
				ifc->name);
	for (i = 0; i < nq; i++) {
		struct rfs_explain_queue *q = &qs[i];
		__u32 key, cpu;

		q->rxq = i;
		q->kthread_asleep_now = -1;
		if (!in->steerable)
			continue;	/* rfs_xdp stops at the parse */
		q->have_table = read_entry(ifc->dev_outer_fd, 0, hash, i,
					   &q->index, &q->entry);
		q->have_prev = read_entry(ifc->dev_outer_fd, 1, hash, i,
					  &q->prev_index, &q->prev_entry);
		rfs_explain_pick_entry(q);
		if (!(q->cur.flags & RFS_DEV_FLOW_VALID) ||
		    (q->cur.flags & RFS_DEV_FLOW_LOCAL))
			continue;
		/* rfs_cur_drained(): the same keys */
		cpu = q->cur.cpu;
		key = rfs_rx_track_index(cpu, q->cur.rx_cpu, dp->nr_rx_cpus);
		q->have_track =
			!bpf_map_lookup_elem(dp->rx_track_fd, &key, &q->track);
		q->have_cpu_queue = !bpf_map_lookup_elem(dp->cpu_queues_fd,
							 &cpu, &q->q);
	}
	rfs_kthreads_idle(dp, idle, quiet);
	in->have_jiffies = rfs_read_jiffies(&in->jiffies);
	/* one value per possible CPU, not per steered one */
	tx = rfs_lookup_percpu(dp->tx_seq_fd, 0, sizeof(struct rfs_tx_seq),
			       &ncpu);
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	for (i = 0; i < nq; i++) {
		struct rfs_explain_queue *q = &qs[i];
		int cpu = q->cur.cpu;

		if (!(q->cur.flags & RFS_DEV_FLOW_VALID) || cpu >= dp->nr_cpus)
			continue;
		q->leaving_since_ms = ifc->leaving_since_ms[cpu];
		if (!(q->cur.flags & RFS_DEV_FLOW_LOCAL)) {
			q->kthread_asleep_now = idle[cpu];
			if (tx && q->cur.rx_cpu < ncpu) {
				q->have_tx = true;
				q->tx_seq = tx[q->cur.rx_cpu].seq[cpu];
				q->tx_dropped_upto =
					tx[q->cur.rx_cpu].dropped_upto[cpu];
			}
		}
		/* rfs_devtab_busy()'s question, on what was read above (a
		 * local flow's answer reads none of the remote fields) */
		q->hold = rfs_hold_judge(&(struct rfs_hold_in){
			.f = q->cur,
			.have_jiffies = in->have_jiffies,
			.jiffies = in->jiffies,
			.drain_jiffies = ifc->local_drain_jiffies,
			.in_cpumap = rfs_cpuset_has(&dp->in_cpumap, cpu),
			.track = q->track,
			.delivered = q->have_cpu_queue ? q->q.delivered : 0,
			.idle = idle[cpu],
			.quiet = quiet[cpu],
			.settled = !rfs_cpuset_has(&ifc->allowed, cpu),
			.have_tx = q->have_tx,
			.dropped_upto = q->tx_dropped_upto,
		});
	}
	free(tx);
	*out = qs;
	*n = nq;
	return 0;
}
