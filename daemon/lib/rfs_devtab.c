// SPDX-License-Identifier: GPL-2.0
/* Dev flow tables from userspace: whether a flow has frames in flight is
 * answered by the XDP program's own test (rfs_hold_judge()).  A resize
 * never copies a live table: the new, empty one goes into slot 0 of
 * rfs_dev_outer, the old one into slot 1, never written again, where a
 * flow missing from the new one finds its state, until nothing in it is
 * in flight (rfs_devtab_retire(), on rfsd's refresh timer). */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "rfs_dp.h"
#include "rfs_order.h"

#define RFS_DEV_CUR	0
#define RFS_DEV_PREV	1

int rfs_devtab_create(int btf_src_fd, __u32 flow_cnt, __u32 rx_queues)
{
	struct rfs_dev_flow hdr = rfs_dev_table_header(flow_cnt, rx_queues);
	__u32 zero = 0;
	int fd;

	fd = rfs_create_table(btf_src_fd, RFS_MAP_DEV_FLOWS, "rfs_dev_flow",
			      sizeof(struct rfs_dev_flow),
			      rfs_dev_table_entries(flow_cnt, rx_queues));
	if (fd < 0)
		return fd;
	if (bpf_map_update_elem(fd, &zero, &hdr, BPF_ANY)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int rfs_read_task(__u32 pid, char *comm, size_t len, char *state,
			 unsigned int *flags)
{
	char path[64], buf[512];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return rfs_parse_task_stat(buf, comm, len, state, flags) ? -ESRCH : 0;
}

int rfs_kthread_open(__u32 pid, int cpu, __u32 map_id, char *state,
		     char *why, size_t len)
{
	char comm[64], want[64];
	unsigned int flags = 0;
	int pfd = pid ? syscall(SYS_pidfd_open, pid, 0) : -1;
	size_t w;

	if (pfd < 0 || rfs_read_task(pid, comm, sizeof(comm), state, &flags) ||
	    !rfs_pidfd_alive(pfd)) {
		snprintf(why, len, "pid %u is gone", pid);
		goto fail;
	}
	/* A kernel that cuts kthread names to a task's 15-character comm
	 * leaves the start of the name to agree with. */
	w = snprintf(want, sizeof(want), "cpumap/%d/map:%u", cpu, map_id);
	if (!(flags & RFS_PF_KTHREAD) ||
	    (strcmp(comm, want) && (w <= 15 || strlen(comm) != 15 ||
				    strncmp(comm, want, 15)))) {
		snprintf(why, len, "pid %u is not its cpumap kthread ('%.24s'%s, not '%.24s')",
			 pid, comm, flags & RFS_PF_KTHREAD ? "" : ", a user task",
			 want);
		goto fail;
	}
	return pfd;
fail:
	if (pfd >= 0)
		close(pfd);
	return -ESRCH;
}

bool rfs_pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&p, 1, 0) == 0;
}

static int rfs_kthread_try(__u32 pid, __u32 map_id,
			   int (*fn)(void *, int, __u32, char), void *ctx)
{
	char comm[64], why[128], state;
	unsigned int flags, id;
	int cpu, end = 0, fd, r = 0;

	/* the whole name only: a cut one may be another cpumap's */
	if (rfs_read_task(pid, comm, sizeof(comm), &state, &flags) ||
	    sscanf(comm, "cpumap/%d/map:%u%n", &cpu, &id, &end) != 2 ||
	    comm[end] || id != map_id || cpu < 0 || cpu >= RFS_MAX_CPUS)
		return 0;
	fd = rfs_kthread_open(pid, cpu, map_id, &state, why, sizeof(why));
	if (fd >= 0) {
		r = fn(ctx, cpu, pid, state);
		close(fd);
	}
	return r;
}

void rfs_kthreads_scan(__u32 map_id, int (*fn)(void *, int, __u32, char),
		       void *ctx)
{
	struct dirent *de;
	__u32 pid;
	FILE *f;
	DIR *d;

	/* Every kthread is a child of kthreadd (PID 2): a few hundred PIDs
	 * where /proc may hold a hundred thousand tasks.  All of /proc where
	 * that list is missing or PID 2 is not kthreadd (a PID namespace). */
	f = fopen("/proc/2/task/2/children", "re");
	if (f) {
		while (fscanf(f, "%u", &pid) == 1)
			if (rfs_kthread_try(pid, map_id, fn, ctx)) {
				fclose(f);
				return;
			}
		fclose(f);
	}
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d)))
		if (!rfs_parse_u32(de->d_name, &pid) &&
		    rfs_kthread_try(pid, map_id, fn, ctx))
			break;
	closedir(d);
}

struct rfs_idle_scan {
	bool *idle, *seen;
	int nr_cpus;
};

static int rfs_idle_note(void *ctx, int cpu, __u32 pid, char state)
{
	struct rfs_idle_scan *s = ctx;

	if (cpu < s->nr_cpus && !s->seen[cpu])
		s->idle[cpu] = state == 'S';
	return 0;
}

/* A kthread asleep this long has an empty ring and nothing in an RX
 * CPU's bulk queue for it (those are flushed at every NAPI poll's end):
 * whatever was sent to it is delivered, or was dropped on a full ring. */
#define RFS_QUIET_MS	1000

void rfs_kthreads_idle(struct rfs_dp *dp, bool *idle, bool *quiet)
{
	bool seen[RFS_MAX_CPUS] = { false }, missing = false;
	struct rfs_idle_scan s = { idle, seen, dp->nr_cpus };
	struct rfs_cpu_queue *q = rfs_array_read(dp->cpu_queues_fd, sizeof(*q),
						 dp->nr_cpus);
	__u64 now = rfs_mono_ms();
	char why[128], state;
	int c, fd;

	for (c = 0; c < dp->nr_cpus; c++) {
		fd = q ? rfs_kthread_open(q[c].kthread_pid, c,
					  dp->globals.cpumap_id, &state,
					  why, sizeof(why)) : -ESRCH;
		seen[c] = fd >= 0;
		missing |= !seen[c];
		idle[c] = seen[c] && state == 'S';
		if (fd >= 0)
			close(fd);
	}
	free(q);
	/* no record yet (no batch, or a kernel without the batch hook) */
	if (missing)
		rfs_kthreads_scan(dp->globals.cpumap_id, rfs_idle_note, &s);
	for (c = 0; c < dp->nr_cpus; c++) {
		if (!idle[c])
			dp->asleep_since_ms[c] = 0;
		else if (!dp->asleep_since_ms[c])
			dp->asleep_since_ms[c] = now;
		quiet[c] = idle[c] &&
			   now - dp->asleep_since_ms[c] >= RFS_QUIET_MS;
	}
}

typedef int (*rfs_held_fn)(void *ctx, const struct rfs_held_flow *h);

/* Each held flow of a table on a CPU of cpus (NULL: any) to fn, until fn
 * returns nonzero: its value, 0, or -errno.  The removal and the reports
 * ask here alike, so what status shows is what holds the CPU. */
static int rfs_devtab_scan(struct rfs_dp *dp, int table_fd,
			   const struct rfs_cpuset *cpus, __u32 drain_jiffies,
			   const struct rfs_cpuset *allowed, rfs_held_fn fn,
			   void *ctx)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct rfs_rx_track *tracks = NULL;
	struct rfs_cpu_queue *queues = NULL;
	struct rfs_dev_flow *t;
	bool idle[RFS_MAX_CPUS], quiet[RFS_MAX_CPUS];
	const size_t stride_words =
		rfs_percpu_stride(sizeof(struct rfs_tx_seq)) / sizeof(__u32);
	__u32 *tx = NULL;
	__u32 n, i;
	int e = 0, r = 0, ncpu = 0, jiffies_known = -1;
	__u64 now = 0;

	if (bpf_obj_get_info_by_fd(table_fd, &info, &len))
		return -errno;
	n = info.max_entries;
	t = rfs_array_read(table_fd, sizeof(*t), n);
	if (!t)
		return -errno;
	tracks = calloc(n, sizeof(*tracks));
	if (!tracks) {
		e = -ENOMEM;
		goto out;
	}
	/* Marks first, then the kthreads' state: "asleep" must be newer
	 * than the mark it vouches for (rfs_order.h). */
	for (i = 1; i < n; i++) {
		__u32 key;

		if (!(t[i].flags & RFS_DEV_FLOW_VALID) ||
		    (t[i].flags & RFS_DEV_FLOW_LOCAL) ||
		    t[i].cpu >= dp->nr_cpus ||
		    (cpus && !rfs_cpuset_has(cpus, t[i].cpu)))
			continue;
		key = rfs_rx_track_index(t[i].cpu, t[i].rx_cpu, dp->nr_rx_cpus);
		if (bpf_map_lookup_elem(dp->rx_track_fd, &key, &tracks[i])) {
			e = -errno;
			goto out;
		}
	}
	queues = rfs_array_read(dp->cpu_queues_fd, sizeof(*queues),
				dp->nr_cpus);
	if (!queues) {
		e = -errno;
		goto out;
	}
	rfs_kthreads_idle(dp, idle, quiet);
	/* after the sleep was seen: a drop recorded since is covered too */
	tx = rfs_lookup_percpu(dp->tx_seq_fd, 0, sizeof(struct rfs_tx_seq),
			       &ncpu);
	for (i = 1; i < n && !r; i++) {
		const struct rfs_dev_flow *f = &t[i];
		struct rfs_hold_in in = { .f = *f };
		struct rfs_held_flow h = {
			.index = i,
			.flow_mask = t[0].last,
			.prev_table = !allowed,
			.f = *f,
		};

		if (!(f->flags & RFS_DEV_FLOW_VALID) || f->cpu >= dp->nr_cpus ||
		    (cpus && !rfs_cpuset_has(cpus, f->cpu)))
			continue;
		/* A local flow passed up recently keeps its CPU in the
		 * cpumap, to hand over through it (rfs_pick_cpu) rather than
		 * wait for a gap a busy flow may never leave, and an old
		 * table holding it stays.  Jiffies read after the table: the
		 * age is never understated. */
		if (f->flags & RFS_DEV_FLOW_LOCAL) {
			if (jiffies_known < 0)
				jiffies_known = rfs_read_jiffies(&now);
			in.have_jiffies = jiffies_known;
			in.jiffies = now;
			in.drain_jiffies = drain_jiffies;
		} else {
			in.in_cpumap = rfs_cpuset_has(&dp->in_cpumap, f->cpu);
			in.track = tracks[i];
			in.delivered = queues[f->cpu].delivered;
			in.idle = idle[f->cpu];
			in.quiet = quiet[f->cpu];
			/* rfs_if_set_cpus() and rfs_iface_refresh() push
			 * the allowed set (waiting out its readers) before
			 * they ask about a CPU it left */
			in.settled = !allowed ||
				     !rfs_cpuset_has(allowed, f->cpu);
			in.have_tx = tx && f->rx_cpu < ncpu;
			if (in.have_tx)
				in.dropped_upto =
					tx[(size_t)f->rx_cpu * stride_words +
					   RFS_MAX_CPUS + f->cpu];
			h.kthread_asleep = idle[f->cpu];
		}
		h.why = rfs_hold_judge(&in);
		if (h.why == RFS_HOLD_NONE)
			continue;
		rfs_dev_locate(&t[0], i, &h.slot, &h.rxq);
		r = fn(ctx, &h);
	}
out:
	free(t);
	free(tracks);
	free(queues);
	free(tx);
	return e ? e : r;
}

static int rfs_held_stop(void *ctx, const struct rfs_held_flow *h)
{
	return 1;
}

int rfs_devtab_busy(struct rfs_dp *dp, int table_fd, __u32 drain_jiffies)
{
	return rfs_devtab_scan(dp, table_fd, NULL, drain_jiffies, NULL,
			       rfs_held_stop, NULL);
}

static int rfs_held_collect(void *ctx, const struct rfs_held_flow *h)
{
	struct rfs_hold_cpu *by_cpu = ctx;

	rfs_hold_add(&by_cpu[h->f.cpu], h);
	return 0;
}

static int rfs_devtab_prev_fd(const struct rfs_if *ifc)
{
	__u32 slot = RFS_DEV_PREV, id;

	if (bpf_map_lookup_elem(ifc->dev_outer_fd, &slot, &id))
		return -ENOENT;
	return bpf_map_get_fd_by_id(id);
}

static int rfs_devtab_scan_both(struct rfs_dp *dp, const struct rfs_if *ifc,
				const struct rfs_cpuset *cpus, rfs_held_fn fn,
				void *ctx)
{
	int e, prev;

	e = rfs_devtab_scan(dp, ifc->dev_flows_fd, cpus,
			    ifc->local_drain_jiffies, &ifc->allowed, fn, ctx);
	prev = e ? -1 : rfs_devtab_prev_fd(ifc);
	if (prev < 0)
		return e;
	e = rfs_devtab_scan(dp, prev, cpus, ifc->local_drain_jiffies, NULL,
			    fn, ctx);
	close(prev);
	return e;
}

int rfs_devtab_in_flight(struct rfs_dp *dp, const struct rfs_if *ifc, __u32 cpu)
{
	struct rfs_cpuset one;

	rfs_cpuset_zero(&one);
	rfs_cpuset_add(&one, cpu);
	return rfs_devtab_scan_both(dp, ifc, &one, rfs_held_stop, NULL);
}

int rfs_devtab_holds(struct rfs_dp *dp, const struct rfs_if *ifc,
		     const struct rfs_cpuset *cpus, struct rfs_hold_cpu *by_cpu)
{
	return rfs_devtab_scan_both(dp, ifc, cpus, rfs_held_collect, by_cpu);
}

/* Whether the table before the last resize has frames in flight, or
 * -ENOENT: there is none.  Asked after an RCU wait, so no frame can be
 * sent on it any more (rfs_hold_in.settled). */
static int rfs_devtab_prev_busy(struct rfs_dp *dp, const struct rfs_if *ifc)
{
	int prev = rfs_devtab_prev_fd(ifc), busy;

	if (prev < 0)
		return -ENOENT;
	rfs_wait_rcu();
	busy = rfs_devtab_busy(dp, prev, ifc->local_drain_jiffies);
	close(prev);
	return busy;
}

void rfs_devtab_retire(struct rfs_dp *dp, struct rfs_if *ifc)
{
	__u32 slot = RFS_DEV_PREV;

	if (rfs_devtab_prev_busy(dp, ifc))
		return;
	if (bpf_map_delete_elem(ifc->dev_outer_fd, &slot))
		pr_warn("%s: can't drop the previous flow table: %s\n",
			ifc->name, strerror(errno));
	else
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "previous flow table dropped: nothing in flight in it since the last resize");
}

int rfs_devtab_resize(struct rfs_dp *dp, struct rfs_if *ifc, __u32 flow_cnt,
		      char *err)
{
	__u32 cur = RFS_DEV_CUR, prev = RFS_DEV_PREV;
	int new_fd, e;

	/* Only one old table at a time: the one before must be empty of
	 * in-flight frames before it is let go. */
	e = rfs_devtab_prev_busy(dp, ifc);
	if (e && e != -ENOENT)
		return rfs_errf(err, e < 0 ? e : EBUSY,
				"%s: the table before the last resize still has frames in flight; try again shortly",
				ifc->name);
	new_fd = rfs_devtab_create(ifc->dev_flows_fd, flow_cnt, ifc->rx_queues);
	if (new_fd < 0)
		return rfs_errf(err, new_fd, "%s: can't create a flow table of %u: %m",
				ifc->name, flow_cnt);
	/* Old table into slot 1 first: from the swap on, every flow missing
	 * from the new table finds its state there. */
	if (bpf_map_update_elem(ifc->dev_outer_fd, &prev, &ifc->dev_flows_fd,
				BPF_ANY) ||
	    bpf_map_update_elem(ifc->dev_outer_fd, &cur, &new_fd, BPF_ANY)) {
		e = -errno;
		close(new_fd);
		bpf_map_delete_elem(ifc->dev_outer_fd, &prev);
		return rfs_errf(err, e, "%s: can't swap flow tables: %m",
				ifc->name);
	}
	close(ifc->dev_flows_fd);
	ifc->dev_flows_fd = new_fd;
	ifc->flow_cnt = flow_cnt;
	if (!ifc->no_attach) {
		char dir[IF_NAMESIZE + 3], why[RFS_ERR_LEN];

		snprintf(dir, sizeof(dir), "if/%s", ifc->name);
		if (rfs_pin_at(dp->base, ifc->dev_flows_fd, dir,
			       RFS_MAP_DEV_FLOWS, why))
			pr_warn("%s\n", why);
	}
	return 0;
}
