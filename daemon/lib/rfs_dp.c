// SPDX-License-Identifier: GPL-2.0
/* The datapath handle: open (load and pin, or adopt), close, the list of
 * interfaces, which changes only here (rfs_dp_int.h), and the sweep of our
 * programs that nobody owns (rfsd --cleanup too). */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "rfs_dp_int.h"

/* Room for one more interface, taken before it is made: once attached
 * it is listed, never left behind for want of memory. */
static int rfs_dp_if_reserve(struct rfs_dp *dp)
{
	struct rfs_if **v = realloc(dp->ifs, (dp->n_ifs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	dp->ifs = v;
	return 0;
}

static bool rfs_if_is_loopback(const char *name)
{
	struct ifreq r = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool lo = false;

	if (fd < 0)
		return false;
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", name);
	if (!ioctl(fd, SIOCGIFFLAGS, &r))
		lo = r.ifr_flags & IFF_LOOPBACK;
	close(fd);
	return lo;
}

/* Loopback sockets are recorded only while a loopback interface is
 * steered: else their entries only push steered flows out of the sock
 * flow table.  Called whenever the list of interfaces changes. */
static void rfs_dp_sync_loopback(struct rfs_dp *dp)
{
	__u32 want = 0, zero = 0;
	size_t i;

	for (i = 0; i < dp->n_ifs && !want; i++)
		want = rfs_if_is_loopback(dp->ifs[i]->name);
	if (want == dp->globals.steer_loopback)
		return;
	dp->globals.steer_loopback = want;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &dp->globals, BPF_ANY))
		pr_warn("can't write %s: %s; loopback sockets %s recorded\n",
			RFS_MAP_GLOBALS, strerror(errno),
			want ? "are still not" : "are still");
	else
		pr_info("loopback sockets %s recorded: %s\n",
			want ? "now" : "no longer",
			want ? "a loopback interface is steered" :
			       "no loopback interface is steered");
}

static void rfs_dp_if_remove(struct rfs_dp *dp, struct rfs_if *ifc)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++) {
		if (dp->ifs[i] != ifc)
			continue;
		memmove(&dp->ifs[i], &dp->ifs[i + 1],
			(dp->n_ifs - i - 1) * sizeof(dp->ifs[0]));
		dp->n_ifs--;
		break;
	}
	rfs_iface_free(ifc);
	rfs_dp_sync_loopback(dp);
}

/* Every interface pinned under if/ whose program still runs there. */
static int rfs_dp_adopt_ifs(struct rfs_dp *dp, char *err)
{
	struct rfs_if_env env = rfs_dp_env(dp);
	char path[PATH_MAX], why[RFS_ERR_LEN];
	struct rfs_if *ifc;
	struct dirent *de;
	DIR *d;
	int e;

	if (rfs_path(path, "%s/if", dp->base))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		/* one adopted under its new name is seen again here */
		if (de->d_name[0] == '.' || rfs_dp_if_find(dp, de->d_name))
			continue;
		e = rfs_dp_if_reserve(dp);
		if (e)
			rfs_errf(why, e, "adopt %s: out of memory", de->d_name);
		else
			e = rfs_iface_adopt(&env, de->d_name, &ifc, why);
		if (!e)
			dp->ifs[dp->n_ifs++] = ifc;
		if (e == -EPROTO) {
			closedir(d);
			return rfs_errf(err, e,
					"%s (stop the rfsd using it, run rfsd --cleanup --pin-dir %s, or pick another --pin-dir)",
					why, dp->pin_name);
		}
		if (e)
			pr_warn("%s\n", why);
	}
	closedir(d);
	rfs_dp_sync_loopback(dp);
	return 0;
}

/* Everything of rfs_dp_open() that can fail; *teardown once it may have
 * begun to load and pin. */
static int rfs_dp_setup(struct rfs_dp *dp, const struct rfs_dp_opts *o,
			bool *adopted, bool *teardown, char *err)
{
	static const char *const dirs[] = { "maps", "links", "progs", "if" };
	char path[PATH_MAX];
	size_t i;
	int e, n;

	if (rfs_path(dp->base, "%s/%s", dp->pin_dir, RFS_PIN_LAYOUT))
		return rfs_errf(err, ENAMETOOLONG, "pin dir too long");
	n = libbpf_num_possible_cpus();
	if (n <= 0)
		return rfs_errf(err, n ? n : EINVAL, "can't count possible CPUs");
	dp->nr_cpus = n > RFS_MAX_CPUS ? RFS_MAX_CPUS : n;
	dp->nr_rx_cpus = n > RFS_MAX_RX_CPUS ? RFS_MAX_RX_CPUS : n;
	if (n > RFS_MAX_CPUS)
		pr_warn("%d possible CPUs: steering only to the first %d\n", n,
			RFS_MAX_CPUS);
	if (n > RFS_MAX_RX_CPUS)
		pr_warn("%d possible CPUs: frames arriving on CPUs past %d go up the stack unsteered\n",
			n, RFS_MAX_RX_CPUS - 1);
	e = rfs_cpuset_online(&dp->online);
	if (e)
		return rfs_errf(err, e, "can't read online CPUs: %s", strerror(-e));

	e = rfs_pin_ensure_bpffs(dp->pin_dir, err, RFS_ERR_LEN);
	if (e)
		return e;
	e = rfs_pin_mkdirs(dp->pin_dir);
	if (e)
		return rfs_errf(err, e, "can't create pin dir '%s': %s",
				dp->pin_name, strerror(-e));
	dp->lock_fd = rfs_pin_lock(dp->pin_dir);
	if (dp->lock_fd < 0) {
		e = dp->lock_fd;
		dp->lock_fd = -1;
		return rfs_errf(err, e, e == -EBUSY ?
				"pin dir '%s' is in use by another rfsd" :
				"can't lock pin dir '%s': %s",
				dp->pin_name, strerror(-e));
	}

	if (rfs_path(path, "%s/maps/%s", dp->base, RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				dp->pin_name);
	if (!access(path, F_OK)) {
		e = rfs_core_adopt(dp, err) ?: rfs_dp_adopt_ifs(dp, err);
		if (!e && adopted)
			*adopted = true;
		return e;
	}
	e = rfs_core_other_layout(dp, err);
	if (e)
		return e;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((e = rfs_path(path, "%s/%s", dp->base, dirs[i])) ||
		    (e = rfs_pin_mkdirs(path)))
			return rfs_errf(err, e, "can't create '%s': %s", path,
					strerror(-e));
	*teardown = true;
	return rfs_core_create(dp, o, err);
}

int rfs_dp_open(struct rfs_dp **out, const struct rfs_dp_opts *o,
		bool *adopted, char *err)
{
	bool teardown = false;
	struct rfs_dp *dp;
	int e;

	*out = NULL;
	if (adopted)
		*adopted = false;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return rfs_errf(err, ENOMEM, "out of memory");
	dp->lock_fd = -1;
	rfs_core_reset_fds(dp, false);
	snprintf(dp->pin_name, sizeof(dp->pin_name), "%s",
		 o->pin_dir ? o->pin_dir : RFS_PIN_DIR_DEFAULT);
	snprintf(dp->pin_dir, sizeof(dp->pin_dir), "%s",
		 o->pin_at ? o->pin_at : dp->pin_name);
	snprintf(dp->cgroup, sizeof(dp->cgroup), "%s",
		 o->cgroup ? o->cgroup : "/sys/fs/cgroup");
	dp->qsize = o->cpumap_qsize ? o->cpumap_qsize : RFS_CPUMAP_QSIZE;
	dp->allow_unordered = o->allow_unordered;
	dp->budget = o->budget;
	rfs_kfeatures_detect(&dp->feat);
	e = rfs_dp_setup(dp, o, adopted, &teardown, err);
	if (e) {
		rfs_dp_close(dp, teardown);
		return e;
	}
	rfs_core_fill_ids(dp);
	*out = dp;
	return 0;
}

/* Every layout's tree (v1/, v2/ ...; all false: this build's only), then
 * pin_dir if empty: anything else in it is someone else's. */
static void rfs_remove_layouts(const char *pin_dir, bool all)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(pin_dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if ((all ? de->d_name[0] == 'v' && de->d_name[1] >= '0' &&
			   de->d_name[1] <= '9' :
			   !strcmp(de->d_name, RFS_PIN_LAYOUT)) &&
		    !rfs_path(path, "%s/%s", pin_dir, de->d_name))
			rfs_pin_walk(path, true, NULL, NULL);
	closedir(d);
	rmdir(pin_dir);
}

void rfs_dp_close(struct rfs_dp *dp, bool teardown)
{
	char why[RFS_ERR_LEN];
	__u32 cpu;

	if (!dp)
		return;
	if (teardown) {
		while (dp->n_ifs) {
			struct rfs_if *ifc = dp->ifs[dp->n_ifs - 1];
			char name[IF_NAMESIZE];
			int ifindex = ifc->ifindex;

			snprintf(name, sizeof(name), "%s", ifc->name);
			if (rfs_if_detach(dp, ifc, why)) {
				pr_warn("%s\n", why);
				rfs_dp_if_remove(dp, ifc);
			} else {
				rfs_log_iface(RFS_LOG_INFO, name, ifindex,
					      "detached: rfsd is exiting (detach_on_exit)");
			}
		}
		rfs_core_detach_links(dp);
		/* Empty the cpumap: that stops its kthreads now. */
		for (cpu = 0; dp->cpu_map_fd >= 0 && cpu < (__u32)dp->nr_cpus; cpu++)
			bpf_map_delete_elem(dp->cpu_map_fd, &cpu);
		rfs_remove_layouts(dp->pin_dir, false);
	} else {
		while (dp->n_ifs)
			rfs_dp_if_remove(dp, dp->ifs[dp->n_ifs - 1]);
	}
	free(dp->ifs);
	rfs_core_reset_fds(dp, true);
	if (dp->lock_fd >= 0)
		close(dp->lock_fd);
	free(dp);
}

/* rfs_dp.h's accessors that read one field */
#define RFS_DP_GET(type, name, expr)					\
	type rfs_dp_##name(const struct rfs_dp *dp) { return expr; }
RFS_DP_GET(__u32, sock_flow_entries, dp->globals.sock_flow_mask + 1)
RFS_DP_GET(int, nr_cpus, dp->nr_cpus)
RFS_DP_GET(__u32, cpumap_id, dp->globals.cpumap_id)
RFS_DP_GET(const char *, pin_dir, dp->pin_name)
RFS_DP_GET(const char *, cgroup, dp->cgroup)
RFS_DP_GET(enum rfs_trace_mode, trace_mode, dp->trace_mode)
RFS_DP_GET(const struct rfs_kfeatures *, kfeatures, &dp->feat)
RFS_DP_GET(size_t, if_count, dp->n_ifs)

void rfs_dp_kjudge(const struct rfs_dp *dp, struct rfs_feat_report *r)
{
	rfs_kjudge(&dp->feat, r);
}

void rfs_dp_prog_ids(const struct rfs_dp *dp, struct rfs_dp_prog_ids *ids)
{
	*ids = dp->ids;
}

int rfs_dp_set_sock_flow_entries(struct rfs_dp *dp, __u32 n, char *err)
{
	__u32 old_n = rfs_dp_sock_flow_entries(dp);
	int e;

	e = rfs_socktab_resize(dp->globals_fd, dp->sock_outer_fd,
			       &dp->sock_flows_fd, &dp->globals, n, err);
	if (e || rfs_dp_sock_flow_entries(dp) == old_n)
		return e;
	return rfs_pin_at(dp->base, dp->sock_flows_fd, "maps",
			  RFS_MAP_SOCK_FLOWS, err);
}

int rfs_dp_read_gstats(const struct rfs_dp *dp, struct rfs_global_stats *out)
{
	return rfs_read_percpu(dp->gstats_fd, 0, sizeof(*out), out, dp->nr_cpus);
}

int rfs_dp_read_queues(const struct rfs_dp *dp, struct rfs_cpu_queue *out)
{
	return rfs_read_array(dp->cpu_queues_fd, sizeof(*out), dp->nr_cpus, out);
}

struct rfs_cpu_queue *rfs_dp_queues(const struct rfs_dp *dp)
{
	struct rfs_cpu_queue *q = calloc(dp->nr_cpus, sizeof(*q));

	if (q && rfs_dp_read_queues(dp, q)) {
		free(q);
		q = NULL;
	}
	return q;
}

/* A map update would write the whole value over the counters BPF keeps
 * in it: one word through the array's mmap instead, mapped for the call
 * only (a policy change is rare). */
int rfs_dp_write_ksched_note(const struct rfs_dp *dp, int cpu, __u64 note)
{
	const size_t len = sizeof(struct rfs_cpu_queue) * RFS_MAX_CPUS;
	struct rfs_cpu_queue *q;

	if (cpu < 0 || cpu >= dp->nr_cpus)
		return -EINVAL;
	q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dp->cpu_queues_fd, 0);
	if (q == MAP_FAILED)
		return -errno;
	__atomic_store_n(&q[cpu].ksched_note, note, __ATOMIC_RELAXED);
	munmap(q, len);
	return 0;
}

/*
 * Per target CPU and RX CPU: the last sequence number sent (rfs_tx_seq)
 * against the newest one marked dequeued (rfs_rx_track).  Frames up to a
 * flush that found the ring full are dequeued or lost, and lost ones
 * never will be: not counted, so the figure may be short but never stays
 * above zero once traffic stops.  Sequence numbers are read first, so a
 * frame dequeued between the reads only makes a pair negative: none.
 */
int rfs_dp_read_backlog(const struct rfs_dp *dp, __u64 *out)
{
	const size_t stride =
		rfs_percpu_stride(sizeof(struct rfs_tx_seq)) / sizeof(__u32);
	__u32 *tx, key, sent, done, dropped;
	struct rfs_rx_track tr;
	int nr = dp->nr_cpus, ncpu, rx, t, e = 0;

	tx = rfs_lookup_percpu(dp->tx_seq_fd, 0, sizeof(struct rfs_tx_seq),
			       &ncpu);
	if (!tx)
		return -errno;
	for (t = 0; t < nr; t++) {
		out[t] = 0;
		for (rx = 0; rx < dp->nr_rx_cpus && rx < ncpu; rx++) {
			sent = tx[(size_t)rx * stride + t];
			if (!sent)	/* never sent there: no lookup */
				continue;
			key = rfs_rx_track_index(t, rx, dp->nr_rx_cpus);
			if (bpf_map_lookup_elem(dp->rx_track_fd, &key, &tr)) {
				e = -errno;
				goto out;
			}
			done = (__u32)tr.last;		/* the mark's seq */
			dropped = tx[(size_t)rx * stride + RFS_MAX_CPUS + t];
			if ((__s32)(dropped - done) > 0)
				done = dropped;
			if ((__s32)(sent - done) > 0)
				out[t] += sent - done;
		}
	}
out:
	free(tx);
	return e;
}

__u32 rfs_dp_desired_cpu(const struct rfs_dp *dp, __u32 hash)
{
	return rfs_socktab_desired_cpu(dp->sock_flows_fd, &dp->globals, hash);
}

struct rfs_if *rfs_dp_if_at(struct rfs_dp *dp, size_t i)
{
	return i < dp->n_ifs ? dp->ifs[i] : NULL;
}

struct rfs_if *rfs_dp_if_find(struct rfs_dp *dp, const char *name)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		if (!strcmp(dp->ifs[i]->name, name))
			return dp->ifs[i];
	return NULL;
}

struct rfs_if *rfs_dp_if_find_index(struct rfs_dp *dp, int ifindex)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		if (!dp->ifs[i]->no_attach && dp->ifs[i]->ifindex == ifindex)
			return dp->ifs[i];
	return NULL;
}

/* ---- the rfs_if_* calls that change the list or need the datapath ---- */

int rfs_if_attach(struct rfs_dp *dp, const char *name,
		  const struct rfs_if_opts *o, struct rfs_if **out, char *err)
{
	struct rfs_if_env env = rfs_dp_env(dp);
	struct rfs_if *ifc;
	int e;

	if (out)
		*out = NULL;
	if (rfs_dp_if_find(dp, name))
		return rfs_errf(err, EEXIST, "attach %s: already attached", name);
	if (!o->no_attach && !o->allow_unordered && !dp->allow_unordered) {
		struct rfs_feat_report r;
		int i;

		rfs_kjudge(&dp->feat, &r);
		for (i = 0; !r.order_kept && i < r.n; i++)
			if (r.line[i].level == RFS_FEAT_UNSAFE)
				return rfs_errf(err, EOPNOTSUPP,
						"attach %s: this kernel can't keep flows in order (%s: %s); set allow_unordered = yes in [global] or use rfsctl attach --allow-unordered to steer anyway",
						name, r.line[i].name,
						r.line[i].value);
	}
	if (rfs_dp_if_reserve(dp))
		return rfs_errf(err, ENOMEM, "attach %s: out of memory", name);
	/* our own orphan there is replaced, never another's program */
	if (!o->no_attach && if_nametoindex(name))
		rfs_dp_sweep_orphans(dp, if_nametoindex(name));
	e = rfs_iface_attach(&env, name, o, &ifc, err);
	if (e)
		return e;
	dp->ifs[dp->n_ifs++] = ifc;
	rfs_dp_sync_loopback(dp);
	if (out)
		*out = ifc;
	return 0;
}

int rfs_if_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	struct rfs_if_env env = rfs_dp_env(dp);
	int e = rfs_iface_detach(&env, ifc, err);

	if (!e)
		rfs_dp_if_remove(dp, ifc);
	return e;
}

void rfs_if_forget(struct rfs_dp *dp, struct rfs_if *ifc)
{
	struct rfs_if_env env = rfs_dp_env(dp);

	rfs_iface_unpin(&env, ifc->name);
	rfs_dp_if_remove(dp, ifc);
}

int rfs_if_rename(struct rfs_dp *dp, struct rfs_if *ifc, const char *name)
{
	struct rfs_if_env env = rfs_dp_env(dp);

	return rfs_iface_rename(&env, ifc, name);
}

int rfs_if_explain(struct rfs_dp *dp, struct rfs_if *ifc,
		   struct rfs_explain_in *in,
		   struct rfs_explain_queue **out, size_t *n, char *err)
{
	struct rfs_if_env env = rfs_dp_env(dp);

	return rfs_iface_explain(&env, ifc, in, out, n, err);
}

/*
 * Our programs nobody owns.  An XDP program is this datapath's by what it
 * is: it uses a map pinned under our pin dir (every interface's program
 * shares the core's cpumap), never by its name, so another rfsd's is
 * never touched.  The kernel records a program's maps at load, before any
 * XDP link exists, so a restarted rfsd knows its own at once.  One its
 * interface pins name is adopted; any other (rfsd killed between attach
 * and pin, pins removed by hand) is swept before the control socket
 * serves and before an attach to its interface.  `rfsd --cleanup` removes
 * them all with the pins.
 */
int rfs_dp_sweep_orphans(struct rfs_dp *dp, int ifindex)
{
	__u32 *keep = calloc(dp->n_ifs + 1, sizeof(*keep));
	size_t i;
	int n;

	if (!keep)
		return -ENOMEM;
	for (i = 0; i < dp->n_ifs; i++)
		keep[i] = dp->ifs[i]->prog_id;
	n = rfs_iface_sweep(&dp->globals.cpumap_id, 1, keep, dp->n_ifs,
			    ifindex);
	free(keep);
	return n;
}

struct rfs_ids {
	__u32 *v;
	size_t n, cap;
};

static void rfs_ids_add(struct rfs_ids *s, __u32 id)
{
	__u32 *v;

	if (s->n == s->cap) {
		v = realloc(s->v, (s->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return;
		s->v = v;
		s->cap = s->cap * 2 + 16;
	}
	s->v[s->n++] = id;
}

static void rfs_note_map(const char *path, void *ctx)
{
	int fd = bpf_obj_get(path);

	if (fd >= 0) {
		rfs_ids_add(ctx, rfs_obj_id(fd));
		close(fd);
	}
}

int rfs_dp_cleanup(const char *pin_dir, char *err)
{
	struct rfs_dp_opts o = { .pin_dir = pin_dir };
	struct rfs_ids ours = { 0 };
	char path[PATH_MAX];
	struct rfs_dp *dp;
	int e, lock;

	if (rfs_path(path, "%s/%s/maps/%s", pin_dir, RFS_PIN_LAYOUT,
		     RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				pin_dir);
	lock = rfs_pin_lock(pin_dir);
	if (lock == -EBUSY)
		return rfs_errf(err, EBUSY,
				"pin dir '%s' is in use by a running rfsd; stop it first",
				pin_dir);
	/* What is ours, whatever the layout: the maps pinned here. */
	rfs_pin_walk(pin_dir, false, rfs_note_map, &ours);
	if (lock >= 0)
		close(lock);	/* adopting takes it again */
	e = -ENOENT;
	if (!access(path, F_OK)) {
		e = rfs_dp_open(&dp, &o, NULL, err);
		if (e && e != -EPROTO)
			goto out;
		if (!e) {
			rfs_dp_close(dp, true);
			pr_info("removed the datapath pinned under %s\n",
				pin_dir);
		}
	}
	if (!access(pin_dir, F_OK)) {
		/* Another build's pins, or half made: every layout's tree */
		lock = rfs_pin_lock(pin_dir);
		if (lock < 0) {
			e = rfs_errf(err, lock, lock == -EBUSY ?
				     "pin dir '%s' is in use by a running rfsd; stop it first" :
				     "can't lock pin dir '%s': %s",
				     pin_dir, strerror(-lock));
			goto out;
		}
		rfs_remove_layouts(pin_dir, true);
		close(lock);
		if (e)
			pr_info("removed the pins under %s\n", pin_dir);
	}
	e = ours.n ? rfs_iface_sweep(ours.v, ours.n, NULL, 0, 0) : 0;
	e = e < 0 ? rfs_errf(err, e, "can't list interfaces: %s",
			     strerror(-e)) : 0;
out:
	free(ours.v);
	return e;
}
