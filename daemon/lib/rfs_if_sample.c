// SPDX-License-Identifier: GPL-2.0
/* What an interface's program counted: its counters, and the flows of a
 * sampling window with their desired and current CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rfs_bpf.h"
#include "rfs_iface.h"
#include "rfs_order.h"

int rfs_if_read_stats(const struct rfs_if *ifc, struct rfs_if_stats *out)
{
	int n = libbpf_num_possible_cpus();

	return rfs_read_percpu(ifc->stats_fd, 0, sizeof(*out), out,
			       n > RFS_MAX_CPUS ? RFS_MAX_CPUS : n);
}

static int cmp_frames_desc(const void *a, const void *b)
{
	const struct rfs_flow_sample *x = a, *y = b;

	return x->frames < y->frames ? 1 : x->frames > y->frames ? -1 : 0;
}

int rfs_if_sample_start(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_flow_hit));
	int ncpu = libbpf_num_possible_cpus(), e;
	__u32 slot;
	char *buf;

	if (ifc->sampling)
		return rfs_errf(err, EBUSY, "flows %s: already being sampled",
				ifc->name);
	buf = calloc(ncpu, stride);
	if (!buf)
		return rfs_errf(err, ENOMEM, "flows: out of memory");
	for (slot = 0; slot < RFS_FLOW_HITS; slot++)
		bpf_map_update_elem(ifc->hits_fd, &slot, buf, BPF_ANY);
	free(buf);
	ifc->sampling = true;
	e = rfs_if_push_config(ifc, 1);
	if (e) {
		ifc->sampling = false;
		return rfs_errf(err, e, "flows %s: can't start sampling: %s",
				ifc->name, strerror(-e));
	}
	return 0;
}

void rfs_if_sample_stop(struct rfs_if *ifc)
{
	if (!ifc->sampling)
		return;
	ifc->sampling = false;
	rfs_if_push_config(ifc, 0);
}

int rfs_iface_sample_collect(const struct rfs_if_env *env, struct rfs_if *ifc,
			     size_t limit, struct rfs_flow_sample **out,
			     size_t *n, char *err)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_flow_hit));
	int ncpu = libbpf_num_possible_cpus(), c;
	struct rfs_flow_sample *v = NULL;
	size_t nv = 0, cap = 0, i;
	char *buf;
	__u32 slot;
	int e = 0;

	*out = NULL;
	*n = 0;
	rfs_if_sample_stop(ifc);
	buf = calloc(ncpu, stride);
	if (!buf)
		return rfs_errf(err, ENOMEM, "flows: out of memory");

	for (slot = 0; slot < RFS_FLOW_HITS; slot++) {
		if (bpf_map_lookup_elem(ifc->hits_fd, &slot, buf))
			continue;
		for (c = 0; c < ncpu; c++) {
			const struct rfs_flow_hit *h = (void *)(buf + c * stride);

			if (!h->frames)
				continue;
			for (i = 0; i < nv && v[i].hash != h->hash; i++)
				;
			if (i == nv) {
				if (nv == cap) {
					struct rfs_flow_sample *nvp;

					cap = cap ? cap * 2 : 64;
					nvp = realloc(v, cap * sizeof(*v));
					if (!nvp) {
						e = -ENOMEM;
						goto out;
					}
					v = nvp;
				}
				memset(&v[nv], 0, sizeof(v[nv]));
				v[nv].hash = h->hash;
				v[nv].rx_queue = h->rx_queue;
				nv++;
			}
			v[i].frames += h->frames;
		}
	}
	for (i = 0; i < nv; i++) {
		struct rfs_dev_flow f,
			hdr = rfs_dev_table_header(ifc->flow_cnt, ifc->rx_queues);
		__u32 idx = rfs_dev_index(&hdr, v[i].hash, v[i].rx_queue);

		v[i].current_cpu = RFS_NO_CPU;
		if (idx && !bpf_map_lookup_elem(ifc->dev_flows_fd, &idx, &f) &&
		    (f.flags & RFS_DEV_FLOW_VALID)) {
			v[i].current_cpu = f.cpu;
			v[i].local = !!(f.flags & RFS_DEV_FLOW_LOCAL);
		}
		v[i].desired_cpu = rfs_socktab_desired_cpu(env->sock_flows_fd,
							   env->globals,
							   v[i].hash);
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_frames_desc);
	if (limit && nv > limit)
		nv = limit;
	*out = v;
	*n = nv;
	v = NULL;
out:
	free(v);
	free(buf);
	return e ? rfs_errf(err, e, "flows %s: %s", ifc->name, strerror(-e)) : 0;
}
