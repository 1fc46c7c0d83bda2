// SPDX-License-Identifier: GPL-2.0
/* The sock flow table sits in slot 0 of rfs_sock_outer, so a resize is
 * one swap; rfs_globals holds its mask. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "log.h"
#include "rfs_decide.h"
#include "rfs_dp_int.h"

int rfs_socktab_create(int globals_fd, int outer_fd, __u32 entries,
		       char *err)
{
	__u32 zero = 0;
	int fd;

	fd = rfs_create_table(globals_fd, RFS_MAP_SOCK_FLOWS,
			      "rfs_sock_entry_t", sizeof(rfs_sock_entry_t),
			      entries);
	if (fd < 0)
		return rfs_errf(err, fd, "can't create sock flow table of %u entries: %s",
				entries, strerror(-fd));
	if (bpf_map_update_elem(outer_fd, &zero, &fd, BPF_ANY)) {
		int e = errno;

		close(fd);
		return rfs_errf(err, e, "can't install sock flow table: %s",
				strerror(e));
	}
	return fd;
}

/* Entries written into the old table between the copy and the swap:
 * once no program can still write it, copy each changed one where the
 * new slot still holds what the copy put there.  A write racing this
 * costs one flow its hint until its next recv or send, never order. */
static void rfs_sock_resize_catch_up(int old_fd, const rfs_sock_entry_t *copied,
				     __u32 old_n, int new_fd,
				     const rfs_sock_entry_t *filled, __u32 n)
{
	rfs_sock_entry_t *now = calloc(old_n, sizeof(*now));
	rfs_sock_entry_t cur;
	__u32 k, j;

	if (!now)
		return;
	rfs_wait_rcu();
	if (rfs_read_array(old_fd, sizeof(*now), old_n, now))
		goto out;
	for (k = 0; k < old_n; k++) {
		if (now[k] == copied[k] || !now[k])
			continue;
		/* growing: every new slot that folds onto k had its copy */
		for (j = k & (n - 1); j < n; j += old_n)
			if (!bpf_map_lookup_elem(new_fd, &j, &cur) &&
			    cur == filled[j])
				bpf_map_update_elem(new_fd, &j, &now[k], BPF_ANY);
	}
out:
	free(now);
}

/* Entries carry their hash's high bits, so they move: growing, new slot
 * j takes old slot j & old_mask; shrinking, the first non-empty old slot
 * that folds onto j.  A mask must never index past the table in the
 * slot: grow swaps the table first, shrink narrows the mask first. */
int rfs_socktab_resize(int globals_fd, int outer_fd, int *flows_fd,
		       struct rfs_globals *globals, __u32 n, char *err)
{
	__u32 old_n = globals->sock_flow_mask + 1, zero = 0, j, k;
	rfs_sock_entry_t *old_t = NULL, *new_t = NULL;
	int old_fd = *flows_fd, new_fd = -1, e;
	struct rfs_globals g = *globals;

	if (rfs_check_pow2(n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX))
		return rfs_errf(err, EINVAL,
				"set sock-flow-entries: %u is not a power of two (%u..%u)",
				n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX);
	if (n == old_n)
		return 0;
	old_t = calloc(old_n, sizeof(*old_t));
	new_t = calloc(n, sizeof(*new_t));
	if (!old_t || !new_t) {
		e = rfs_errf(err, ENOMEM, "set sock-flow-entries: out of memory");
		goto out;
	}
	e = rfs_read_array(old_fd, sizeof(*old_t), old_n, old_t);
	if (e) {
		e = rfs_errf(err, e, "set sock-flow-entries: can't read the table: %s",
			     strerror(-e));
		goto out;
	}
	for (j = 0; j < n; j++) {
		if (n > old_n) {
			new_t[j] = old_t[j & (old_n - 1)];
			continue;
		}
		for (k = j; k < old_n && !new_t[j]; k += n)
			new_t[j] = old_t[k];
	}
	new_fd = rfs_create_table(globals_fd, RFS_MAP_SOCK_FLOWS,
				  "rfs_sock_entry_t", sizeof(rfs_sock_entry_t), n);
	if (new_fd < 0) {
		e = rfs_errf(err, new_fd, "set sock-flow-entries: can't create a table of %u: %s",
			     n, strerror(-new_fd));
		goto out;
	}
	e = rfs_write_array(new_fd, sizeof(*new_t), n, new_t);
	if (e) {
		e = rfs_errf(err, e, "set sock-flow-entries: can't fill the table: %s",
			     strerror(-e));
		goto out;
	}
	g.sock_flow_mask = n - 1;
	if (n < old_n &&
	    bpf_map_update_elem(globals_fd, &zero, &g, BPF_ANY))
		goto fail_errno;
	if (bpf_map_update_elem(outer_fd, &zero, &new_fd, BPF_ANY))
		goto fail_errno;
	if (n > old_n &&
	    bpf_map_update_elem(globals_fd, &zero, &g, BPF_ANY))
		goto fail_errno;
	*globals = g;
	*flows_fd = new_fd;
	new_fd = old_fd;	/* closed below */
	rfs_sock_resize_catch_up(old_fd, old_t, old_n, *flows_fd, new_t, n);
	pr_debug("sock flow table: %u -> %u entries\n", old_n, n);	/* callers say why */
	goto out;
fail_errno:
	e = rfs_errf(err, errno, "set sock-flow-entries: can't swap tables: %s",
		     strerror(errno));
out:
	if (new_fd >= 0)
		close(new_fd);
	free(old_t);
	free(new_t);
	return e;
}

__u32 rfs_socktab_desired_cpu(int flows_fd, const struct rfs_globals *g,
			      __u32 hash)
{
	__u32 idx = rfs_sock_index(hash, g->sock_flow_mask);
	rfs_sock_entry_t e;

	if (bpf_map_lookup_elem(flows_fd, &idx, &e))
		return RFS_NO_CPU;
	return rfs_sock_entry_cpu(e, hash, g->cpu_mask);
}
