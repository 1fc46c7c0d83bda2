// SPDX-License-Identifier: GPL-2.0
/*
 * Attached to a cgroup v2: asks for the TCP state callback on every
 * established connection and clears the connection's sock flow entry when
 * it closes, so a closed flow's CPU does not linger for the next flow that
 * lands in the slot.  Only an entry carrying this flow's tag is cleared.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "rfs_common.h"
#include "rfs_decide.h"
#include "rfs_hash.h"
#include "rfs_maps.bpf.h"


static __always_inline void rfs_sockops_key(struct bpf_sock_ops *ops,
					    struct rfs_flow_key *k)
{
	k->proto = IPPROTO_TCP;
	k->local_port = ops->local_port;
	k->peer_port = bpf_ntohl(ops->remote_port);
	if (ops->family == RFS_AF_INET6) {
		k->local[0] = ops->local_ip6[0];
		k->local[1] = ops->local_ip6[1];
		k->local[2] = ops->local_ip6[2];
		k->local[3] = ops->local_ip6[3];
		k->peer[0] = ops->remote_ip6[0];
		k->peer[1] = ops->remote_ip6[1];
		k->peer[2] = ops->remote_ip6[2];
		k->peer[3] = ops->remote_ip6[3];
		k->is_v6 = 1;
		rfs_flow_key_normalise(k);
	} else {
		k->local[0] = ops->local_ip4;
		k->peer[0] = ops->remote_ip4;
	}
}

static __always_inline void rfs_clear_flow(struct bpf_sock_ops *ops)
{
	struct rfs_flow_key key = {};
	struct rfs_global_stats *gs;
	struct rfs_globals *g;
	rfs_sock_entry_t *slot;
	__u32 hash;

	g = rfs_get_globals();
	gs = rfs_get_gstats();
	if (!g || !gs)
		return;
	rfs_sockops_key(ops, &key);
	hash = rfs_flow_hash(&key, g->hash_seed);
	slot = rfs_sock_slot(g, hash);
	if (!slot || rfs_sock_entry_cpu(*slot, hash, g->cpu_mask) == RFS_NO_CPU)
		return;
	*slot = 0;
	gs->sock_clears++;
}

SEC("sockops")
int rfs_sockops(struct bpf_sock_ops *ops)
{
	struct rfs_flow_key key = {};
	struct rfs_globals *g;

	switch (ops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		/* a loopback connection is never recorded (rfs_sock.bpf.h):
		 * nothing to clear when it closes */
		g = rfs_get_globals();
		rfs_sockops_key(ops, &key);
		if (g && !g->steer_loopback && rfs_flow_key_loopback(&key))
			break;
		bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags |
					       BPF_SOCK_OPS_STATE_CB_FLAG);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		if (ops->args[1] == RFS_TCP_CLOSE)
			rfs_clear_flow(ops);
		break;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
