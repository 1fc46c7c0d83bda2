// SPDX-License-Identifier: GPL-2.0
/*
 * The per-frame path: hash the flow, look up where its application runs
 * and where its last frame went, pick the CPU (rfs_pick_cpu) and redirect
 * the frame into that CPU's cpumap queue.  One instance of this program is
 * loaded per interface; its rfs_if_cfg, rfs_dev_outer and rfs_if_stats are
 * that interface's own, every other map is shared.
 *
 * It drops only a frame whose socket is refusing its datagrams
 * (rfs_full_drops), or one whose earlier frames may still be in flight
 * when its CPU leaves the cpumap: anything it does not steer goes up the
 * stack here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>

#include "rfs_common.h"
#include "rfs_decide.h"
#include "rfs_order.h"
#include "rfs_maps.bpf.h"
#include "rfs_if_cfg.bpf.h"
#include "rfs_parse.bpf.h"
#include <xdp/xdp_helpers.h>

/* This interface's dev flow table as first loaded: a header entry and
 * rx_queues * flow_cnt flows (rfsd sets max_entries before load). */
struct rfs_dev_flows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);
	__uint(max_entries, RFS_FLOW_CNT_DEFAULT + 1);
	__type(key, __u32);
	__type(value, struct rfs_dev_flow);
} rfs_dev_flows SEC(".maps");

/*
 * Slot 0 holds the table in use; slot 1, after a resize, the table it
 * replaced, frozen: a flow that has no entry in the new table yet takes
 * its state from there, so a resize loses no in-flight flow (rfsd removes
 * it once every flow in it has drained).
 */
#define RFS_DEV_CUR	0
#define RFS_DEV_PREV	1
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct rfs_dev_flows);
} rfs_dev_outer SEC(".maps") = {
	.values = { [RFS_DEV_CUR] = &rfs_dev_flows },
};

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

/* The entry for this flow in a dev flow table, or NULL. */
static __always_inline struct rfs_dev_flow *rfs_dev_entry(__u32 slot,
							  __u32 hash,
							  __u32 rxq)
{
	struct rfs_dev_flow *hdr;
	__u32 zero = 0, idx;
	void *table;

	table = bpf_map_lookup_elem(&rfs_dev_outer, &slot);
	if (!table)
		return NULL;
	hdr = bpf_map_lookup_elem(table, &zero);
	if (!hdr || !rfs_dev_table_ok(hdr))
		return NULL;
	idx = rfs_dev_index(hdr, hash, rxq);
	if (!idx)
		return NULL;	/* a queue past the table: not steered */
	return bpf_map_lookup_elem(table, &idx);
}

/*
 * Is every frame on the flow's current path delivered?  Only asked when
 * the flow wants to move, so its cost (a few loads, and on an otherwise
 * unproven remote path one read of the target kthread's state) falls on
 * moves, not on every frame.
 */
static __always_inline int rfs_cur_drained(const struct rfs_dev_flow *cur,
					   const struct rfs_globals *g)
{
	struct rfs_rx_track t, *tr;
	struct rfs_cpu_queue *q;
	__u32 cpu = cur->cpu, idx;
	struct task_struct *kt;
	unsigned int state = 0;

	if (cur->flags & RFS_DEV_FLOW_LOCAL)
		return 0;	/* the caller checks the local path */
	q = bpf_map_lookup_elem(&rfs_cpu_queues, &cpu);
	idx = rfs_rx_track_index(cpu, cur->rx_cpu, g->nr_rx_cpus);
	tr = bpf_map_lookup_elem(&rfs_rx_track, &idx);
	if (!q || !tr)
		return 0;
	/* A fetch-add of 0 is a full barrier: the kthread state read below
	 * is newer than the mark, so "asleep" covers the marked frame. */
	t.last = __sync_fetch_and_add(&tr->last, 0);
	t.prev = RFS_READ_ONCE(tr->prev);
	t.jiffy1 = RFS_READ_ONCE(tr->jiffy1);
	t.jiffy2 = RFS_READ_ONCE(tr->jiffy2);
	t.done = RFS_READ_ONCE(tr->done);
	if (rfs_path_drained(cur, &t, RFS_READ_ONCE(q->delivered), 0, 0, 0))
		return 1;
	kt = (struct task_struct *)RFS_READ_ONCE(q->kthread);
	if (!kt || bpf_core_read(&state, sizeof(state), &kt->__state))
		return 0;
	/* TASK_INTERRUPTIBLE: asleep at the top of its loop, which it only
	 * reaches with an empty ring after a full GRO flush. */
	return rfs_path_drained(cur, &t, RFS_READ_ONCE(q->delivered),
				state == RFS_TASK_INTERRUPTIBLE, 0, 0);
}

static __always_inline void rfs_count(struct rfs_if_stats *s,
				      const struct rfs_choice *c)
{
	/* steered = to_desired + spread + held: a held frame went to the
	 * old path, neither where the application is nor where the hash
	 * says */
	s->steered++;
	if (c->local)
		s->local++;
	if (c->verdict == RFS_V_HELD)
		s->held++;
	else if (c->spread)
		s->spread++;
	else
		s->to_desired++;
	if (c->verdict == RFS_V_SWITCH || c->verdict == RFS_V_FORCED)
		s->switches++;
}

SEC("xdp")
int rfs_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct rfs_flow_state st = { .desired_cpu = RFS_NO_CPU };
	struct rfs_flow_key key = {};
	struct rfs_dev_flow *df, *prev;
	struct rfs_frame_meta *meta;
	struct rfs_if_config *cfg;
	struct rfs_globals *g;
	struct rfs_if_stats *s;
	struct rfs_tx_seq *tx;
	struct rfs_choice c;
	rfs_sock_entry_t *se;
	__u32 zero = 0, rxq, seq, win;
	__u64 now = 0;
	long ret;
	int why, marked;

	s = bpf_map_lookup_elem(&rfs_if_stats, &zero);
	if (!s)
		return XDP_PASS;
	s->seen++;

	why = rfs_parse_frame(data, end, &key);
	if (why != RFS_PARSE_OK)
		return rfs_count_pass(s, why);

	g = rfs_get_globals();
	cfg = rfs_if_config();
	tx = bpf_map_lookup_elem(&rfs_tx_seq, &zero);
	if (!g || !cfg || !tx)
		return rfs_count_pass(s, -1);

	st.hash = rfs_flow_hash(&key, g->hash_seed);
	/* the flow's slot only while some socket refused lately: a line per
	 * flow, cold where many flows go through, against a word of this
	 * line */
	win = RFS_READ_ONCE(g->early_drop_jiffies);
	if (win) {
		now = bpf_jiffies64();
		if (rfs_full_any(RFS_READ_ONCE(g->full_jiffy), (__u32)now, win) &&
		    rfs_flow_full(st.hash, (__u32)now, win)) {
			/* before the redirect and any mark, number or entry
			 * written: a frame never sent is nothing the in-order
			 * rule covers */
			s->early_drop++;
			return XDP_DROP;
		}
	}
	se = rfs_sock_slot(g, st.hash);
	if (se)
		st.desired_cpu = rfs_sock_entry_cpu(*se, st.hash, g->cpu_mask);
	st.rx_cpu = bpf_get_smp_processor_id();
	if (st.rx_cpu >= g->nr_rx_cpus)
		return rfs_count_pass(s, -1);	/* no track of its own */

	rxq = ctx->rx_queue_index;
	if (cfg->sample_flows)
		rfs_sample_flow(st.hash, rxq);
	df = rfs_dev_entry(RFS_DEV_CUR, st.hash, rxq);
	if (!df)
		return rfs_count_pass(s, -1);
	st.cur = rfs_dev_flow_load(df);
	if (!(st.cur.flags & RFS_DEV_FLOW_VALID)) {
		/* Not seen since a resize: the old table knows it. */
		prev = rfs_dev_entry(RFS_DEV_PREV, st.hash, rxq);
		if (prev)
			st.cur = rfs_dev_flow_load(prev);
	}

	c = rfs_pick_cpu(&st, cfg);
	if (c.verdict == RFS_V_HELD) {
		if (st.cur.flags & RFS_DEV_FLOW_LOCAL) {
			if (!now)
				now = bpf_jiffies64();
			st.cur_drained = rfs_path_drained(&st.cur, NULL, 0, 0,
						now, cfg->local_drain_jiffies);
		} else {
			st.cur_drained = rfs_cur_drained(&st.cur, g);
		}
		if (st.cur_drained)
			c = rfs_pick_cpu(&st, cfg);
	}
	if (c.verdict == RFS_V_NONE)
		return rfs_count_pass(s, -1);

	if (c.local) {
		/* Up the stack here, as RPS does for its own CPU. */
		if (!now)
			now = bpf_jiffies64();
		rfs_record_local(df, c.cpu, now);
		rfs_count(s, &c);
		return XDP_PASS;
	}

	ret = bpf_redirect_map(&rfs_cpu_map, c.cpu, XDP_PASS);
	if (ret != XDP_REDIRECT) {
		/* Not in the cpumap (rfsd removes a CPU from usable before it
		 * removes it there, so only a race gets here).  On a path
		 * that may still hold the flow's earlier frames, passing
		 * this one up here would overtake them: drop it, as a full
		 * ring would.  Otherwise up the stack here.  Flow state
		 * untouched either way. */
		s->redirect_err++;
		if (c.verdict == RFS_V_KEEP || c.verdict == RFS_V_HELD)
			return XDP_DROP;
		return ret;
	}
	/* Only a frame a proof must cover carries a mark (rfs_order.h,
	 * LAZY MARKS): the target reads no metadata of the others.  A frame
	 * that comes with another program's metadata gets ours in front
	 * all the same, so the target never takes theirs for ours. */
	marked = rfs_choice_marked(&c) ||
		 (long)ctx->data_meta < (long)ctx->data;
	meta = NULL;
	if (marked && !bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta))) {
		data = (void *)(long)ctx->data;
		meta = (void *)(long)ctx->data_meta;
		if ((void *)(meta + 1) > data)
			meta = NULL;
	}
	if (marked && !meta) {
		/* No room for metadata: the frame goes bare, still where its
		 * flow's frames go, behind them; the flow stays held until a
		 * marked frame from this CPU covers it.  Passing it up here
		 * instead could overtake the flow's frames in flight. */
		s->no_meta++;
		marked = 0;
	}
	seq = rfs_tx_number(&tx->seq[c.cpu & (RFS_MAX_CPUS - 1)], marked);
	if (meta) {
		meta->seq = seq;
		meta->rx_cpu = (__u16)st.rx_cpu;
		meta->cpu = (__u8)c.cpu;
		meta->magic = RFS_META_MAGIC;
	}
	rfs_record_sent(df, c.cpu, st.rx_cpu, seq, !marked);
	rfs_count(s, &c);
	return XDP_REDIRECT;
}

/* Under a libxdp dispatcher, run after other programs (default 50):
 * filters first, steering last; chain on if we pass the frame. */
struct {
	__uint(priority, 200);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rfs_xdp);

char LICENSE[] SEC("license") = "GPL";
