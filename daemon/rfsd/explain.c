// SPDX-License-Identifier: GPL-2.0
/*
 * The explain command: one flow's hash, sock slot, dev slots and ordering
 * state, and what its next frame does on each RX queue, computed by the
 * datapath's own code (daemon/lib/rfs_explain.h) on the maps as they are.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mono.h"
#include "rfs_explain.h"
#include "rfs_order.h"

/* short names: the replies below are long lists of members */
#define add	json_object_object_add
#define jint	json_object_new_int64
#define jbool	json_object_new_boolean
#define jstr	json_object_new_string

static struct json_object *hex32(__u32 v)
{
	char s[16];

	snprintf(s, sizeof(s), "0x%08x", v);
	return jstr(s);
}

static struct json_object *cpu_json(__u32 cpu)
{
	return cpu >= RFS_MAX_CPUS ? NULL : jint(cpu);
}

/* An address into a key's words; its family, or 0. */
static int parse_addr(const char *s, __u32 w[4])
{
	memset(w, 0, 16);
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
	add(o, "seq", jint(rfs_mark_seq(m)));
	add(o, "epoch", jint(rfs_mark_epoch(m)));
	return o;
}

static struct json_object *entry_json(const struct rfs_dev_flow *e)
{
	struct json_object *o = json_object_new_object();
	bool local = e->flags & RFS_DEV_FLOW_LOCAL;
	bool valid = e->flags & RFS_DEV_FLOW_VALID;

	add(o, "valid", jbool(valid));
	if (!valid)
		return o;
	add(o, "path", jstr(local ? "local" : "cpumap"));
	add(o, "cpu", jint(e->cpu));
	add(o, "rx_cpu", jint(e->rx_cpu));
	add(o, local ? "jiffy" : "seq", jint(e->last));
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
	add(o, "rx_cpu", jint(q->cur.rx_cpu));
	add(o, "cpu", jint(q->cur.cpu));
	add(o, "flow_seq", jint(q->cur.last));
	add(o, "sent_seq", q->have_tx ? jint(q->tx_seq) : NULL);
	add(o, "dropped_upto", q->have_tx ? jint(q->tx_dropped_upto) : NULL);
	if (q->have_track) {
		m = json_object_new_object();
		add(m, "last", mark_json(q->track.last));
		add(m, "prev", mark_json(q->track.prev));
		add(m, "jiffy1", mark_json(q->track.jiffy1));
		add(m, "jiffy2", mark_json(q->track.jiffy2));
		add(m, "done", mark_json(q->track.done));
	}
	add(o, "marks", m);
	add(o, "epoch", q->have_cpu_queue ? jint(q->q.epoch) : NULL);
	add(o, "delivered_epoch",
	    q->have_cpu_queue ? jint(q->q.delivered) : NULL);
	add(o, "kthread_asleep_now", q->kthread_asleep_now < 0 ? NULL :
	    jbool(q->kthread_asleep_now));
	return o;
}

/*
 * Why the flow still holds its CPU, when that matters: its CPU is
 * leaving the interface (the removal waits for it), or the flow wants
 * to move and is held.  The reason is the removal's own test
 * (rfs_hold_judge), as status shows it.
 */
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
	add(o, "cpu", jint(q->cur.cpu));
	add(o, "reason", jstr(rfs_hold_why_name(q->hold)));
	add(o, "why", jstr(rfs_hold_why_words(q->hold)));
	add(o, "cpu_leaving", jbool(leaving));
	add(o, "leaving_waited_ms", !leaving ? NULL :
	    jint(now > q->leaving_since_ms ? now - q->leaving_since_ms : 0));
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

	add(d, "test", jstr(drain_names[c->drain]));
	add(d, "drained", c->drained < 0 ? NULL : jbool(c->drained));
	if (c->drain == RFS_XD_LOCAL) {
		add(d, "age_jiffies", c->age_known ? jint(c->age) : NULL);
		add(d, "needs_jiffies", jint(in->cfg.local_drain_jiffies));
	}
	if (c->drain == RFS_XD_REMOTE) {
		add(d, "proven", jbool(c->proven));
		add(d, "if_kthread_asleep", jbool(c->if_asleep));
	}
	add(d, "then_cpu", cpu_json(c->then.cpu));
	add(d, "then_path", jstr(rfs_explain_action_name(c->action_drained)));
	return d;
}

static struct json_object *case_json(const struct rfs_explain_in *in,
				     const struct rfs_explain_queue *q,
				     __u32 rx_cpu)
{
	struct json_object *o = json_object_new_object();
	struct rfs_explain_case c;
	char words[1024];
	const char *next;

	rfs_explain_case(in, q, rx_cpu, &c);
	/* what the frame will do, one word */
	if (c.action == RFS_XA_PASS_PROTO || c.action == RFS_XA_PASS_NO_TABLE)
		next = "passed";
	else if (c.first.verdict == RFS_V_HELD)
		next = c.drained == 1 ? "switch" :
		       c.drained < 0 ? "held_or_switch" : "held";
	else
		next = rfs_explain_verdict_name(c.first.verdict);
	add(o, "rx_cpu", jint(rx_cpu));
	add(o, "next", jstr(next));
	add(o, "cpu", c.action == RFS_XA_REDIRECT || c.action == RFS_XA_LOCAL ?
	    cpu_json(c.result.cpu) : jint(rx_cpu));
	add(o, "path", jstr(rfs_explain_action_name(c.action)));
	add(o, "verdict", jstr(rfs_explain_verdict_name(c.first.verdict)));
	add(o, "spread", jbool(c.first.spread));
	if (c.first.verdict == RFS_V_HELD)
		add(o, "drain", drain_json(in, &c));
	add(o, "why", jstr(rfs_explain_words(in, q, &c, words, sizeof(words))));
	return o;
}

static struct json_object *queue_json(const struct rfs_explain_in *in,
				      const struct rfs_explain_queue *q,
				      const struct rfs_cpuset *rx_cpus)
{
	struct json_object *o = json_object_new_object(), *cases;
	unsigned int cpu;

	add(o, "rx_queue", jint(q->rxq));
	add(o, "slot", q->have_table ? jint(q->index) : NULL);
	add(o, "entry", q->have_table ? entry_json(&q->entry) : NULL);
	if (q->have_prev) {
		add(o, "prev_slot", jint(q->prev_index));
		add(o, "prev_entry", entry_json(&q->prev_entry));
	}
	add(o, "from_prev", jbool(q->cur_from_prev));
	add(o, "order", order_json(q));
	add(o, "hold", hold_json(in, q));
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
	add(o, "cases", cases);
	return o;
}

/* The flow, its sock slot and its queues. */
static struct json_object *explain_json(struct rfs_if *ifc,
					const struct rfs_explain_in *in,
					const char *src, const char *dst,
					const struct rfs_explain_queue *qs,
					size_t n, const struct rfs_cpuset *rx)
{
	struct json_object *o = json_object_new_object(), *s = NULL, *qa;
	__u32 hash = rfs_explain_hash(in);
	__u32 desired = rfs_explain_desired(in, hash);
	bool st = in->steerable;
	size_t i;

	add(o, "iface", jstr(rfs_if_name(ifc)));
	add(o, "src", jstr(src));
	add(o, "dst", jstr(dst));
	add(o, "sport", st ? jint(in->key.peer_port) : NULL);
	add(o, "dport", st ? jint(in->key.local_port) : NULL);
	add(o, "proto", jstr(!st ? "other" :
			     in->key.proto == IPPROTO_UDP ? "udp" : "tcp"));
	add(o, "hash", st ? hex32(hash) : NULL);
	if (st) {
		s = json_object_new_object();
		add(s, "slot", jint(rfs_explain_sock_slot(in, hash)));
		add(s, "entries", jint((__u64)in->g.sock_flow_mask + 1));
		add(s, "entry", in->have_sock ? hex32(in->sock_entry) : NULL);
		add(s, "empty", jbool(!in->have_sock ||
				      !(in->sock_entry & in->g.cpu_mask)));
		add(s, "tag_match", jbool(desired != RFS_NO_CPU));
	}
	add(o, "sock", s);
	add(o, "desired_cpu", cpu_json(desired));
	add(o, "local_path", jbool(in->cfg.local_path));
	add(o, "kernel_rps", jbool(rfs_if_kernel_rps(ifc)));
	add(o, "jiffies", in->have_jiffies ? jint(in->jiffies) : NULL);
	qa = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(qa, queue_json(in, &qs[i], rx));
	add(o, "rx_queues", qa);
	return o;
}

struct json_object *rfsd_cmd_explain(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req)
{
	struct json_object *reply = NULL, *o;
	const char *name, *src, *dst, *proto = NULL;
	struct rfs_explain_queue *qs = NULL;
	struct rfs_explain_in in = {};
	char err[RFS_ERR_LEN] = "";
	long long sport = -1, dport = -1, rx = -1;
	struct rfs_cpuset rx_cpus;
	int fs, fd, r1, r2, r;
	struct rfs_if *ifc;
	size_t n = 0;

	if (rfsd_arg_iface(req, true, &name, &reply) < 0 ||
	    rfsd_arg_str(req, "src", true, &src, &reply) < 0 ||
	    rfsd_arg_str(req, "dst", true, &dst, &reply) < 0 ||
	    (r1 = rfsd_arg_int(req, "sport", false, 0, 65535, &sport, &reply)) < 0 ||
	    (r2 = rfsd_arg_int(req, "dport", false, 0, 65535, &dport, &reply)) < 0 ||
	    rfsd_arg_str(req, "proto", false, &proto, &reply) < 0 ||
	    rfsd_arg_int(req, "rx_cpu", false, 0, RFS_MAX_CPUS - 1, &rx,
			 &reply) < 0)
		return reply;
	if (r1 != r2)
		return rfsd_reply_err(EINVAL, "bad request: 'sport' and 'dport' go together");
	if (proto && strcmp(proto, "tcp") && strcmp(proto, "udp"))
		return rfsd_reply_err(EINVAL, "bad request: 'proto' must be \"tcp\" or \"udp\"");
	if (proto && r1)
		return rfsd_reply_err(EINVAL, "bad request: 'proto' needs 'sport' and 'dport'");
	fs = parse_addr(src, in.key.peer);
	fd = parse_addr(dst, in.key.local);
	if (!fs || !fd)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not an IPv4 or IPv6 address",
				      fs ? dst : src);
	if (fs != fd)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not of the family of '%s'",
				      dst, src);
	ifc = rfsd_find_if(x, "explain", name, &reply);
	if (!ifc)
		return reply;
	/* as rfs_parse_frame() fills it: src is the peer, dst the local end */
	in.key.is_v6 = fs == AF_INET6;
	in.steerable = !r1;
	if (in.steerable) {
		in.key.peer_port = sport;
		in.key.local_port = dport;
		in.key.proto = proto && !strcmp(proto, "udp") ? IPPROTO_UDP :
			       IPPROTO_TCP;
	}
	r = rfs_if_explain(x->dp, ifc, &in, &qs, &n, err);
	if (r)
		return rfsd_reply_dp_err(r, err, "explain");
	rfs_cpuset_zero(&rx_cpus);
	if (rx >= 0)
		rfs_cpuset_add(&rx_cpus, rx);
	else if (rfs_cpuset_online(&rx_cpus))
		rfs_cpuset_add(&rx_cpus, 0);
	o = explain_json(ifc, &in, src, dst, qs, n, &rx_cpus);
	free(qs);
	return rfsd_reply_ok(o);
}
