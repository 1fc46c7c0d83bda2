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

static struct json_object *hex32(__u32 v)
{
	char s[16];

	snprintf(s, sizeof(s), "0x%08x", v);
	return json_object_new_string(s);
}

static struct json_object *cpu_json(__u32 cpu)
{
	return cpu >= RFS_MAX_CPUS ? NULL : json_object_new_int64(cpu);
}

/* An address into a key's words; its family, or 0. */
static int parse_addr(const char *s, __u32 w[4])
{
	memset(w, 0, 16);
	if (inet_pton(AF_INET, s, w) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, w) == 1)
		return AF_INET6;
	return 0;
}

static struct json_object *mark_json(__u64 m)
{
	struct json_object *o;

	if (!m)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "seq", json_object_new_int64(rfs_mark_seq(m)));
	json_object_object_add(o, "epoch",
			       json_object_new_int64(rfs_mark_epoch(m)));
	return o;
}

static struct json_object *entry_json(const struct rfs_dev_flow *e)
{
	struct json_object *o = json_object_new_object();
	bool local = e->flags & RFS_DEV_FLOW_LOCAL;

	if (!(e->flags & RFS_DEV_FLOW_VALID)) {
		json_object_object_add(o, "valid", json_object_new_boolean(0));
		return o;
	}
	json_object_object_add(o, "valid", json_object_new_boolean(1));
	json_object_object_add(o, "path",
			       json_object_new_string(local ? "local" : "cpumap"));
	json_object_object_add(o, "cpu", json_object_new_int(e->cpu));
	json_object_object_add(o, "rx_cpu", json_object_new_int(e->rx_cpu));
	json_object_object_add(o, local ? "jiffy" : "seq",
			       json_object_new_int64(e->last));
	return o;
}

/* The per-(RX CPU, target) state behind a remote entry (rfs_order.h). */
static struct json_object *order_json(const struct rfs_explain_queue *q)
{
	struct json_object *o, *m;

	if (!(q->cur.flags & RFS_DEV_FLOW_VALID) ||
	    (q->cur.flags & RFS_DEV_FLOW_LOCAL))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "rx_cpu", json_object_new_int(q->cur.rx_cpu));
	json_object_object_add(o, "cpu", json_object_new_int(q->cur.cpu));
	json_object_object_add(o, "flow_seq", json_object_new_int64(q->cur.last));
	json_object_object_add(o, "sent_seq",
			       q->have_tx ? json_object_new_int64(q->tx_seq) : NULL);
	json_object_object_add(o, "dropped_upto",
			       q->have_tx ? json_object_new_int64(q->tx_dropped_upto) : NULL);
	if (q->have_track) {
		m = json_object_new_object();
		json_object_object_add(m, "last", mark_json(q->track.last));
		json_object_object_add(m, "prev", mark_json(q->track.prev));
		json_object_object_add(m, "jiffy1", mark_json(q->track.jiffy1));
		json_object_object_add(m, "jiffy2", mark_json(q->track.jiffy2));
		json_object_object_add(m, "done", mark_json(q->track.done));
		json_object_object_add(o, "marks", m);
	} else {
		json_object_object_add(o, "marks", NULL);
	}
	json_object_object_add(o, "epoch", q->have_cpu_queue ?
			       json_object_new_int64(q->q.epoch) : NULL);
	json_object_object_add(o, "delivered_epoch", q->have_cpu_queue ?
			       json_object_new_int64(q->q.delivered) : NULL);
	json_object_object_add(o, "kthread_asleep_now",
			       q->kthread_asleep_now < 0 ? NULL :
			       json_object_new_boolean(q->kthread_asleep_now));
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
	json_object_object_add(o, "cpu", json_object_new_int(q->cur.cpu));
	json_object_object_add(o, "reason", json_object_new_string(
			       rfs_hold_why_name(q->hold)));
	json_object_object_add(o, "why", json_object_new_string(
			       rfs_hold_why_words(q->hold)));
	json_object_object_add(o, "cpu_leaving", json_object_new_boolean(leaving));
	json_object_object_add(o, "leaving_waited_ms", !leaving ? NULL :
			       json_object_new_int64(now > q->leaving_since_ms ?
						     now - q->leaving_since_ms : 0));
	return o;
}

static const char *drain_name(enum rfs_explain_drain d)
{
	switch (d) {
	case RFS_XD_NOT_ASKED:	return "not_asked";
	case RFS_XD_LOCAL:	return "local_age";
	case RFS_XD_REMOTE:	return "remote_marks";
	case RFS_XD_NO_STATE:	return "no_state";
	}
	return "?";
}

static struct json_object *case_json(const struct rfs_explain_in *in,
				     const struct rfs_explain_queue *q,
				     __u32 rx_cpu)
{
	struct json_object *o = json_object_new_object(), *d;
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
	json_object_object_add(o, "rx_cpu", json_object_new_int(rx_cpu));
	json_object_object_add(o, "next", json_object_new_string(next));
	json_object_object_add(o, "cpu", c.action == RFS_XA_REDIRECT ||
			       c.action == RFS_XA_LOCAL ? cpu_json(c.result.cpu) :
			       json_object_new_int(rx_cpu));
	json_object_object_add(o, "path",
			       json_object_new_string(rfs_explain_action_name(c.action)));
	json_object_object_add(o, "verdict", json_object_new_string(
			       rfs_explain_verdict_name(c.first.verdict)));
	json_object_object_add(o, "spread", json_object_new_boolean(c.first.spread));
	if (c.first.verdict == RFS_V_HELD) {
		d = json_object_new_object();
		json_object_object_add(d, "test",
				       json_object_new_string(drain_name(c.drain)));
		json_object_object_add(d, "drained", c.drained < 0 ? NULL :
				       json_object_new_boolean(c.drained));
		if (c.drain == RFS_XD_LOCAL) {
			json_object_object_add(d, "age_jiffies", c.age_known ?
					       json_object_new_int(c.age) : NULL);
			json_object_object_add(d, "needs_jiffies",
					       json_object_new_int64(in->cfg.local_drain_jiffies));
		}
		if (c.drain == RFS_XD_REMOTE) {
			json_object_object_add(d, "proven",
					       json_object_new_boolean(c.proven));
			json_object_object_add(d, "if_kthread_asleep",
					       json_object_new_boolean(c.if_asleep));
		}
		json_object_object_add(d, "then_cpu", cpu_json(c.then.cpu));
		json_object_object_add(d, "then_path", json_object_new_string(
				       rfs_explain_action_name(c.action_drained)));
		json_object_object_add(o, "drain", d);
	}
	json_object_object_add(o, "why", json_object_new_string(
			       rfs_explain_words(in, q, &c, words, sizeof(words))));
	return o;
}

static struct json_object *queue_json(const struct rfs_explain_in *in,
				      const struct rfs_explain_queue *q,
				      const struct rfs_cpuset *rx_cpus)
{
	struct json_object *o = json_object_new_object(), *cases;
	unsigned int cpu;

	json_object_object_add(o, "rx_queue", json_object_new_int(q->rxq));
	json_object_object_add(o, "slot", q->have_table ?
			       json_object_new_int64(q->index) : NULL);
	json_object_object_add(o, "entry", q->have_table ?
			       entry_json(&q->entry) : NULL);
	if (q->have_prev) {
		json_object_object_add(o, "prev_slot",
				       json_object_new_int64(q->prev_index));
		json_object_object_add(o, "prev_entry", entry_json(&q->prev_entry));
	}
	json_object_object_add(o, "from_prev",
			       json_object_new_boolean(q->cur_from_prev));
	json_object_object_add(o, "order", order_json(q));
	json_object_object_add(o, "hold", hold_json(in, q));
	cases = json_object_new_array();
	if (q->cur.flags & RFS_DEV_FLOW_VALID &&
	    rfs_cpuset_count(rx_cpus) != 1) {
		/* the RX CPU that sent its last frame: the likely one */
		json_object_array_add(cases, case_json(in, q, q->cur.rx_cpu));
	} else {
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
			if (rfs_cpuset_has(rx_cpus, cpu))
				json_object_array_add(cases, case_json(in, q, cpu));
	}
	json_object_object_add(o, "cases", cases);
	return o;
}

struct json_object *rfsd_cmd_explain(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req)
{
	struct json_object *reply = NULL, *o, *s, *qa;
	const char *name, *src, *dst, *proto = NULL;
	struct rfs_explain_queue *qs = NULL;
	struct rfs_explain_in in = {};
	char err[RFS_ERR_LEN] = "";
	long long sport = -1, dport = -1, rx = -1;
	struct rfs_cpuset rx_cpus;
	int fs, fd, r1, r2, r;
	struct rfs_if *ifc;
	__u32 hash, desired;
	size_t n = 0, i;

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
	if (!fs)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not an IPv4 or IPv6 address",
				      src);
	fd = parse_addr(dst, in.key.local);
	if (!fd)
		return rfsd_reply_err(EINVAL, "can't parse address '%s': not an IPv4 or IPv6 address",
				      dst);
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

	hash = rfs_explain_hash(&in);
	desired = rfs_explain_desired(&in, hash);
	o = json_object_new_object();
	json_object_object_add(o, "iface", json_object_new_string(rfs_if_name(ifc)));
	json_object_object_add(o, "src", json_object_new_string(src));
	json_object_object_add(o, "dst", json_object_new_string(dst));
	json_object_object_add(o, "sport", in.steerable ? json_object_new_int(sport) : NULL);
	json_object_object_add(o, "dport", in.steerable ? json_object_new_int(dport) : NULL);
	json_object_object_add(o, "proto", json_object_new_string(
			       !in.steerable ? "other" :
			       in.key.proto == IPPROTO_UDP ? "udp" : "tcp"));
	json_object_object_add(o, "hash", in.steerable ? hex32(hash) : NULL);
	s = json_object_new_object();
	json_object_object_add(s, "slot", json_object_new_int64(
			       rfs_explain_sock_slot(&in, hash)));
	json_object_object_add(s, "entries",
			       json_object_new_int64((__u64)in.g.sock_flow_mask + 1));
	json_object_object_add(s, "entry", in.have_sock ? hex32(in.sock_entry) : NULL);
	json_object_object_add(s, "empty", json_object_new_boolean(
			       !in.have_sock || !(in.sock_entry & in.g.cpu_mask)));
	json_object_object_add(s, "tag_match", json_object_new_boolean(
			       desired != RFS_NO_CPU));
	json_object_object_add(o, "sock", in.steerable ? s : NULL);
	if (!in.steerable)
		json_object_put(s);
	json_object_object_add(o, "desired_cpu", cpu_json(desired));
	json_object_object_add(o, "local_path",
			       json_object_new_boolean(in.cfg.local_path));
	json_object_object_add(o, "kernel_rps",
			       json_object_new_boolean(rfs_if_kernel_rps(ifc)));
	json_object_object_add(o, "jiffies", in.have_jiffies ?
			       json_object_new_int64(in.jiffies) : NULL);
	qa = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(qa, queue_json(&in, &qs[i], &rx_cpus));
	json_object_object_add(o, "rx_queues", qa);
	free(qs);
	return rfsd_reply_ok(o);
}
