// SPDX-License-Identifier: GPL-2.0
/* The explain command: one flow's state and its next frame's fate on each
 * RX queue, as daemon/lib/rfs_explain.c computes them, in JSON. */
#include <arpa/inet.h>
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "rfs_order.h"

/* An address into a key's zeroed words; its family, or 0. */
static int parse_addr(const char *s, __u32 w[4])
{
	if (inet_pton(AF_INET, s, w) == 1)
		return AF_INET;
	return inet_pton(AF_INET6, s, w) == 1 ? AF_INET6 : 0;
}

static struct json_object *mark_json(__u64 m)
{
	struct json_object *o;

	if (!m)
		return NULL;
	o = json_object_new_object();
	rfsd_add(o, "seq", rfsd_jint(rfs_mark_seq(m)));
	rfsd_add(o, "epoch", rfsd_jint(rfs_mark_epoch(m)));
	return o;
}

static struct json_object *entry_json(const struct rfs_dev_flow *e)
{
	struct json_object *o = json_object_new_object();
	bool local = e->flags & RFS_DEV_FLOW_LOCAL;
	bool valid = e->flags & RFS_DEV_FLOW_VALID;

	rfsd_add(o, "valid", rfsd_jbool(valid));
	if (!valid)
		return o;
	rfsd_add(o, "path", rfsd_jstr(local ? "local" : "cpumap"));
	rfsd_add(o, "cpu", rfsd_jint(e->cpu));
	rfsd_add(o, "rx_cpu", rfsd_jint(e->rx_cpu));
	rfsd_add(o, local ? "jiffy" : "seq", rfsd_jint(e->last));
	return o;
}

/* The per-(RX CPU, target) state behind a remote entry (rfs_order.h). */
static struct json_object *order_json(const struct rfs_explain_queue *q)
{
	struct json_object *o, *m = NULL;

	if (!(q->cur.flags & RFS_DEV_FLOW_VALID) ||
	    (q->cur.flags & RFS_DEV_FLOW_LOCAL))
		return NULL;
	o = json_object_new_object();
	rfsd_add(o, "rx_cpu", rfsd_jint(q->cur.rx_cpu));
	rfsd_add(o, "cpu", rfsd_jint(q->cur.cpu));
	rfsd_add(o, "flow_seq", rfsd_jint(q->cur.last));
	rfsd_add(o, "sent_seq", q->have_tx ? rfsd_jint(q->tx_seq) : NULL);
	rfsd_add(o, "dropped_upto",
		 q->have_tx ? rfsd_jint(q->tx_dropped_upto) : NULL);
	if (q->have_track) {
		m = json_object_new_object();
		rfsd_add(m, "last", mark_json(q->track.last));
		rfsd_add(m, "prev", mark_json(q->track.prev));
		rfsd_add(m, "jiffy1", mark_json(q->track.jiffy1));
		rfsd_add(m, "jiffy2", mark_json(q->track.jiffy2));
		rfsd_add(m, "done", mark_json(q->track.done));
	}
	rfsd_add(o, "marks", m);
	rfsd_add(o, "epoch", q->have_cpu_queue ? rfsd_jint(q->q.epoch) : NULL);
	rfsd_add(o, "delivered_epoch",
		 q->have_cpu_queue ? rfsd_jint(q->q.delivered) : NULL);
	rfsd_add(o, "kthread_asleep_now", q->kthread_asleep_now < 0 ? NULL :
		 rfsd_jbool(q->kthread_asleep_now));
	return o;
}

/* Why the flow holds its CPU, when the CPU is leaving (its removal waits)
 * or the flow wants to move: the removal's own test, as status says it. */
static struct json_object *hold_json(const struct rfs_explain_in *in,
				     const struct rfs_explain_queue *q)
{
	struct json_object *o;
	struct rfs_explain_case c;
	bool leaving = q->leaving_since_ms != 0;
	__u64 now = rfs_mono_ms();

	if (q->hold == RFS_HOLD_NONE)
		return NULL;
	rfs_explain_case(in, q, q->cur.rx_cpu, &c);
	if (!leaving && c.first.verdict != RFS_V_HELD)
		return NULL;
	o = json_object_new_object();
	rfsd_add(o, "cpu", rfsd_jint(q->cur.cpu));
	rfsd_add(o, "reason", rfsd_jstr(rfs_hold_why_name(q->hold)));
	rfsd_add(o, "why", rfsd_jstr(rfs_hold_why_words(q->hold)));
	rfsd_add(o, "cpu_leaving", rfsd_jbool(leaving));
	rfsd_add(o, "leaving_waited_ms", !leaving ? NULL :
		 rfsd_jint(now > q->leaving_since_ms ?
			   now - q->leaving_since_ms : 0));
	return o;
}

static const char *const drain_names[] = {
	[RFS_XD_NOT_ASKED] = "not_asked",
	[RFS_XD_LOCAL] = "local_age",
	[RFS_XD_REMOTE] = "remote_marks",
	[RFS_XD_NO_STATE] = "no_state",
};

static struct json_object *drain_json(const struct rfs_explain_in *in,
				      const struct rfs_explain_case *c)
{
	struct json_object *d = json_object_new_object();

	rfsd_add(d, "test", rfsd_jstr(drain_names[c->drain]));
	rfsd_add(d, "drained", c->drained < 0 ? NULL : rfsd_jbool(c->drained));
	if (c->drain == RFS_XD_LOCAL) {
		rfsd_add(d, "age_jiffies",
			 c->age_known ? rfsd_jint(c->age) : NULL);
		rfsd_add(d, "needs_jiffies",
			 rfsd_jint(in->cfg.local_drain_jiffies));
	}
	if (c->drain == RFS_XD_REMOTE) {
		rfsd_add(d, "proven", rfsd_jbool(c->proven));
		rfsd_add(d, "if_kthread_asleep", rfsd_jbool(c->if_asleep));
	}
	rfsd_add(d, "then_cpu", rfsd_jcpu(c->then.cpu));
	rfsd_add(d, "then_path",
		 rfsd_jstr(rfs_explain_action_name(c->action_drained)));
	return d;
}

static struct json_object *case_json(const struct rfs_explain_in *in,
				     const struct rfs_explain_queue *q,
				     __u32 rx_cpu)
{
	struct json_object *o = json_object_new_object();
	struct rfs_explain_case c;
	char words[1024];

	rfs_explain_case(in, q, rx_cpu, &c);
	rfsd_add(o, "rx_cpu", rfsd_jint(rx_cpu));
	rfsd_add(o, "next", rfsd_jstr(rfs_explain_next(&c)));
	rfsd_add(o, "cpu",
		 c.action == RFS_XA_REDIRECT || c.action == RFS_XA_LOCAL ?
		 rfsd_jcpu(c.result.cpu) : rfsd_jint(rx_cpu));
	rfsd_add(o, "path", rfsd_jstr(rfs_explain_action_name(c.action)));
	rfsd_add(o, "verdict",
		 rfsd_jstr(rfs_explain_verdict_name(c.first.verdict)));
	rfsd_add(o, "spread", rfsd_jbool(c.first.spread));
	if (c.first.verdict == RFS_V_HELD)
		rfsd_add(o, "drain", drain_json(in, &c));
	rfsd_add(o, "why",
		 rfsd_jstr(rfs_explain_words(in, q, &c, words, sizeof(words))));
	return o;
}

static struct json_object *queue_json(const struct rfs_explain_in *in,
				      const struct rfs_explain_queue *q,
				      const struct rfs_cpuset *rx_cpus)
{
	struct json_object *o = json_object_new_object(), *cases;
	unsigned int cpu;

	rfsd_add(o, "rx_queue", rfsd_jint(q->rxq));
	rfsd_add(o, "slot", q->have_table ? rfsd_jint(q->index) : NULL);
	rfsd_add(o, "entry", q->have_table ? entry_json(&q->entry) : NULL);
	if (q->have_prev) {
		rfsd_add(o, "prev_slot", rfsd_jint(q->prev_index));
		rfsd_add(o, "prev_entry", entry_json(&q->prev_entry));
	}
	rfsd_add(o, "from_prev", rfsd_jbool(q->cur_from_prev));
	rfsd_add(o, "order", order_json(q));
	rfsd_add(o, "hold", hold_json(in, q));
	cases = json_object_new_array();
	if (q->cur.flags & RFS_DEV_FLOW_VALID &&
	    rfs_cpuset_count(rx_cpus) != 1) {
		/* the RX CPU that sent its last frame: the likely one */
		json_object_array_add(cases, case_json(in, q, q->cur.rx_cpu));
	} else {
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
			if (rfs_cpuset_has(rx_cpus, cpu))
				json_object_array_add(cases,
						      case_json(in, q, cpu));
	}
	rfsd_add(o, "cases", cases);
	return o;
}

struct json_object *rfsd_cmd_explain(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     const struct rfsd_req *r)
{
	struct json_object *reply = NULL, *o, *s = NULL, *qa;
	struct rfs_explain_queue *qs = NULL;
	struct rfs_explain_in in = {};
	char err[RFS_ERR_LEN] = "";
	bool st = r->has & RFSD_ARG(SPORT);
	struct rfs_cpuset rx;
	__u32 hash, desired;
	struct rfs_if *ifc;
	int fs, fd, e;
	size_t n = 0, i;

	if (st != !!(r->has & RFSD_ARG(DPORT)))
		return rfsd_reply_err(EINVAL, "bad request: 'sport' and 'dport' go together");
	if (r->proto && strcmp(r->proto, "tcp") && strcmp(r->proto, "udp"))
		return rfsd_reply_err(EINVAL, "bad request: 'proto' must be \"tcp\" or \"udp\"");
	if (r->proto && !st)
		return rfsd_reply_err(EINVAL, "bad request: 'proto' needs 'sport' and 'dport'");
	fs = parse_addr(r->src, in.key.peer);
	fd = parse_addr(r->dst, in.key.local);
	if (!fs || !fd)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not an IPv4 or IPv6 address",
				      fs ? r->dst : r->src);
	if (fs != fd)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not of the family of '%s'",
				      r->dst, r->src);
	ifc = rfsd_find_if(x, "explain", r->iface, &reply);
	if (!ifc)
		return reply;
	/* as rfs_parse_frame() fills it: src is the peer, dst the local end */
	in.key.is_v6 = fs == AF_INET6;
	in.steerable = st;
	if (st) {
		in.key.peer_port = r->sport;
		in.key.local_port = r->dport;
		in.key.proto = r->proto && !strcmp(r->proto, "udp") ?
			       IPPROTO_UDP : IPPROTO_TCP;
	}
	e = rfs_if_explain(x->dp, ifc, &in, &qs, &n, err);
	if (e)
		return rfsd_reply_dp_err(e, err, "explain");
	rfs_cpuset_zero(&rx);
	if (r->rx_cpu >= 0)
		rfs_cpuset_add(&rx, r->rx_cpu);
	else if (rfs_cpuset_online(&rx))
		rfs_cpuset_add(&rx, 0);
	hash = rfs_explain_hash(&in);
	desired = rfs_explain_desired(&in, hash);
	/* the flow, its sock slot and its queues */
	o = json_object_new_object();
	rfsd_add(o, "iface", rfsd_jstr(ifc->name));
	rfsd_add(o, "src", rfsd_jstr(r->src));
	rfsd_add(o, "dst", rfsd_jstr(r->dst));
	rfsd_add(o, "sport", st ? rfsd_jint(in.key.peer_port) : NULL);
	rfsd_add(o, "dport", st ? rfsd_jint(in.key.local_port) : NULL);
	rfsd_add(o, "proto", rfsd_jstr(!st ? "other" :
				       in.key.proto == IPPROTO_UDP ? "udp" : "tcp"));
	rfsd_add(o, "hash", st ? rfsd_jhex32(hash) : NULL);
	if (st) {
		s = json_object_new_object();
		rfsd_add(s, "slot",
			 rfsd_jint(rfs_sock_index(hash, in.g.sock_flow_mask)));
		rfsd_add(s, "entries",
			 rfsd_jint((__u64)in.g.sock_flow_mask + 1));
		rfsd_add(s, "entry",
			 in.have_sock ? rfsd_jhex32(in.sock_entry) : NULL);
		rfsd_add(s, "empty", rfsd_jbool(!in.have_sock ||
						!(in.sock_entry & in.g.cpu_mask)));
		rfsd_add(s, "tag_match", rfsd_jbool(desired != RFS_NO_CPU));
	}
	rfsd_add(o, "sock", s);
	rfsd_add(o, "desired_cpu", rfsd_jcpu(desired));
	rfsd_add(o, "local_path", rfsd_jbool(in.cfg.local_path));
	rfsd_add(o, "kernel_rps", rfsd_jbool(ifc->kernel_rps));
	rfsd_add(o, "jiffies",
		 in.have_jiffies ? rfsd_jint(in.jiffies) : NULL);
	qa = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(qa, queue_json(&in, &qs[i], &rx));
	rfsd_add(o, "rx_queues", qa);
	free(qs);
	return rfsd_reply_ok(o);
}
