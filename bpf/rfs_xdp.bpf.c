// SPDX-License-Identifier: GPL-2.0
/*
 * The per-frame path: hash the flow, look up where its application runs
 * and where its last frame went, pick the CPU (rfs_pick_cpu) and redirect
 * the frame into that CPU's cpumap queue.  One instance of this program is
 * loaded per interface; its rfs_if_cfg, rfs_dev_outer and rfs_if_stats are
 * that interface's own, every other map is shared.
 *
 * It never drops: anything it does not steer goes up the stack here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "rfs_common.h"
#include "rfs_decide.h"
#include "rfs_maps.bpf.h"
#include "rfs_parse.bpf.h"
#include <xdp/xdp_helpers.h>

/* This interface's dev flow table as first loaded: rx_queues * flow_cnt
 * entries (rfsd sets max_entries before load). */
struct rfs_dev_flows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);
	__uint(max_entries, RFS_FLOW_CNT_DEFAULT);
	__type(key, __u32);
	__type(value, struct rfs_dev_flow);
} rfs_dev_flows SEC(".maps");

/* One slot holding the table, so rfsd can swap in a table of another size
 * without reloading the program. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct rfs_dev_flows);
} rfs_dev_outer SEC(".maps") = {
	.values = { [0] = &rfs_dev_flows },
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_if_config);
} rfs_if_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rfs_if_stats);
} rfs_if_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RFS_FLOW_HITS);
	__type(key, __u32);
	__type(value, struct rfs_flow_hit);
} rfs_flow_hits SEC(".maps");

static __always_inline void rfs_sample_flow(__u32 hash, __u32 rxq)
{
	__u32 slot = hash & (RFS_FLOW_HITS - 1);
	struct rfs_flow_hit *h;

	h = bpf_map_lookup_elem(&rfs_flow_hits, &slot);
	if (!h)
		return;
	if (h->hash != hash) {
		h->hash = hash;
		h->frames = 0;
	}
	h->rx_queue = rxq;
	h->frames++;
}

static __always_inline int rfs_count_pass(struct rfs_if_stats *s, int why)
{
	switch (why) {
	case RFS_PARSE_NOT_IP:
		s->pass_not_ip++;
		break;
	case RFS_PARSE_FRAGMENT:
		s->pass_fragment++;
		break;
	case RFS_PARSE_OTHER_PROTO:
		s->pass_other_proto++;
		break;
	case RFS_PARSE_TRUNCATED:
		s->pass_truncated++;
		break;
	default:
		s->pass_no_table++;
		break;
	}
	return XDP_PASS;
}

SEC("xdp")
int rfs_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct rfs_flow_state st = { .desired_cpu = RFS_NO_CPU };
	struct rfs_flow_key key = {};
	struct rfs_producer *prod;
	struct rfs_cpu_queue *q;
	struct rfs_dev_flow *df;
	struct rfs_if_config *cfg;
	struct rfs_globals *g;
	struct rfs_if_stats *s;
	struct rfs_choice c;
	rfs_sock_entry_t *se;
	__u32 zero = 0, rxq, idx, cpu;
	void *dev_table;
	long ret;
	int why;

	s = bpf_map_lookup_elem(&rfs_if_stats, &zero);
	if (!s)
		return XDP_PASS;
	s->seen++;

	why = rfs_parse_frame(data, end, &key);
	if (why != RFS_PARSE_OK)
		return rfs_count_pass(s, why);

	g = rfs_get_globals();
	prod = rfs_get_producer();
	cfg = bpf_map_lookup_elem(&rfs_if_cfg, &zero);
	dev_table = bpf_map_lookup_elem(&rfs_dev_outer, &zero);
	if (!g || !prod || !cfg || !dev_table)
		return rfs_count_pass(s, -1);

	st.hash = rfs_flow_hash(&key, g->hash_seed);

	se = rfs_sock_slot(g, st.hash);
	if (se)
		st.desired_cpu = rfs_sock_entry_cpu(*se, st.hash, g->cpu_mask);

	rxq = ctx->rx_queue_index;
	if (rxq >= cfg->rx_queues)
		rxq = 0;	/* queues added since attach share queue 0's */
	if (cfg->sample_flows)
		rfs_sample_flow(st.hash, rxq);
	/* Slot-major, queue-minor: a slot keeps its index when the table
	 * grows (see rfs_if_set_flow_cnt), whatever the queue count. */
	idx = (st.hash & cfg->flow_mask) * cfg->rx_queues + rxq;
	df = bpf_map_lookup_elem(dev_table, &idx);
	if (!df)
		return rfs_count_pass(s, -1);
	st.cur = *df;

	q = NULL;
	if (st.cur.flags & RFS_DEV_FLOW_VALID) {
		cpu = st.cur.cpu;
		q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
		if (q) {
			st.cur_done = RFS_READ_ONCE(q->done);
			st.cur_unflushed =
				prod->unflushed[cpu & (RFS_MAX_CPUS - 1)];
		} else {
			st.cur.flags = 0;
		}
	}

	c = rfs_pick_cpu(&st, cfg);
	if (c.verdict == RFS_V_NONE)
		return rfs_count_pass(s, -1);

	/* Most frames stay where they are: reuse that CPU's queue slot. */
	if (!q || c.cpu != st.cur.cpu) {
		cpu = c.cpu;
		q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
		if (!q)
			return rfs_count_pass(s, -1);
	}
	cpu = c.cpu;

	ret = bpf_redirect_map(&rfs_cpu_map, cpu, XDP_PASS);
	if (ret != XDP_REDIRECT) {
		/* Not in the cpumap: up the stack here, flow state untouched. */
		s->redirect_err++;
		return ret;
	}

	/* Claim the frame's place in the target queue: once done reaches
	 * last_tail the frame has been delivered (see struct rfs_cpu_queue). */
	df->last_tail = __sync_fetch_and_add(&q->tail, 1) + 1 -
			RFS_READ_ONCE(q->drops);
	prod->unflushed[cpu & (RFS_MAX_CPUS - 1)]++;
	if (!(st.cur.flags & RFS_DEV_FLOW_VALID) || st.cur.cpu != cpu) {
		df->cpu = cpu;
		df->flags = RFS_DEV_FLOW_VALID;
	}

	/* steered = to_desired + spread + held: a held frame went to the old
	 * CPU, neither where the application is nor where the hash says */
	s->steered++;
	if (c.verdict == RFS_V_HELD)
		s->held++;
	else if (c.spread)
		s->spread++;
	else
		s->to_desired++;
	if (c.verdict == RFS_V_SWITCH || c.verdict == RFS_V_FORCED)
		s->switches++;
	return XDP_REDIRECT;
}

/* Under a libxdp dispatcher, run after other programs (default 50):
 * filters first, steering last; chain on if we pass the frame. */
struct {
	__uint(priority, 200);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rfs_xdp);

char LICENSE[] SEC("license") = "GPL";
