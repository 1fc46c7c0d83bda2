// SPDX-License-Identifier: GPL-2.0
/*
 * rfsctl explain, the reading half: the state rfs_xdp would read for one
 * flow, read from the same maps (rfs_explain.h says what is done with
 * it).  Marks are read before the kthreads' state, as the program does,
 * so "asleep" is never older than the mark it is shown beside.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mono.h"
#include "rfs_bpf.h"
#include "rfs_devtab.h"
#include "rfs_explain.h"
#include "rfs_features.h"
#include "rfs_iface.h"
#include "rfs_order.h"

/* The entry of (hash, rxq) in the table in slot of the outer map. */
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

int rfs_iface_explain(const struct rfs_if_env *env, struct rfs_if *ifc,
		      struct rfs_explain_in *in,
		      struct rfs_explain_queue **out, size_t *n, char *err)
{
	const size_t stride_words =
		rfs_percpu_stride(sizeof(struct rfs_tx_seq)) / sizeof(__u32);
	bool idle[RFS_MAX_CPUS], quiet[RFS_MAX_CPUS];
	struct rfs_explain_queue *qs;
	__u32 hash, slot, i;
	__u32 *tx = NULL;
	size_t nq = ifc->rx_queues ? ifc->rx_queues : 1;
	int ncpu = 0;

	*out = NULL;
	*n = 0;
	in->g = *env->globals;
	if (rfs_if_read_config(ifc->cfg_fd, &in->cfg))
		return rfs_errf(err, errno, "explain %s: can't read its config: %s",
				ifc->name, strerror(errno));
	memcpy(in->in_cpumap, env->in_cpumap->bits, sizeof(in->in_cpumap));
	hash = rfs_explain_hash(in);
	slot = rfs_explain_sock_slot(in, hash);
	in->have_sock = !bpf_map_lookup_elem(env->sock_flows_fd, &slot,
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
		key = rfs_rx_track_index(cpu, q->cur.rx_cpu, env->nr_rx_cpus);
		q->have_track = !bpf_map_lookup_elem(env->rx_track_fd, &key,
						     &q->track);
		q->have_cpu_queue = !bpf_map_lookup_elem(env->cpu_queues_fd,
							 &cpu, &q->q);
	}
	/* after the marks, as rfs_cur_drained() reads them */
	rfs_kthreads_idle(env, idle, quiet);
	in->have_jiffies = rfs_read_jiffies(&in->jiffies);
	/* one value per possible CPU, not per steered one */
	tx = rfs_lookup_percpu(env->tx_seq_fd, 0, sizeof(struct rfs_tx_seq),
			       &ncpu);
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	for (i = 0; i < nq; i++) {
		struct rfs_explain_queue *q = &qs[i];
		struct rfs_hold_in h = { .f = q->cur };

		if (!(q->cur.flags & RFS_DEV_FLOW_VALID) ||
		    q->cur.cpu >= env->nr_cpus)
			continue;
		q->leaving_since_ms = ifc->leaving_since_ms[q->cur.cpu];
		/* rfs_devtab_busy()'s question, on what was read above */
		h.have_jiffies = in->have_jiffies;
		h.jiffies = in->jiffies;
		h.drain_jiffies = ifc->local_drain_jiffies;
		if (q->cur.flags & RFS_DEV_FLOW_LOCAL) {
			q->hold = rfs_hold_judge(&h);
			continue;
		}
		q->kthread_asleep_now = idle[q->cur.cpu];
		if (tx && q->cur.rx_cpu < ncpu) {
			const __u32 *t = tx + (size_t)q->cur.rx_cpu * stride_words;

			q->have_tx = true;
			q->tx_seq = t[q->cur.cpu];
			q->tx_dropped_upto = t[RFS_MAX_CPUS + q->cur.cpu];
		}
		h.in_cpumap = rfs_cpuset_has(env->in_cpumap, q->cur.cpu);
		h.track = q->track;
		h.delivered = q->have_cpu_queue ? q->q.delivered : 0;
		h.idle = idle[q->cur.cpu];
		h.quiet = quiet[q->cur.cpu];
		h.settled = !rfs_cpuset_has(&ifc->allowed, q->cur.cpu);
		h.have_tx = q->have_tx;
		h.dropped_upto = q->tx_dropped_upto;
		q->hold = rfs_hold_judge(&h);
	}
	free(tx);
	*out = qs;
	*n = nq;
	return 0;
}
