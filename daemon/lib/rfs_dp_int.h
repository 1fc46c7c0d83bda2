/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the library.  The code of one interface (rfs_iface.c,
 * rfs_explain.c) and of the tables below it works on a struct rfs_if_env
 * built at the rfs_if_* call (rfs_dp_env()), never on the list, which
 * only rfs_dp.c changes.  rfs_bpf.c is a leaf that knows no struct of the
 * datapath.
 */
#ifndef RFS_DP_INT_H
#define RFS_DP_INT_H

#include <unistd.h>

#include <bpf/bpf.h>

#include "rfs_decide.h"
#include "rfs_dp.h"
#include "rfs_explain.h"

/* ---- rfs_bpf.c: libbpf and bpffs, for any of the datapath's modules ---- */

/* "<fmt>" into err (RFS_ERR_LEN); returns -e */
int rfs_errf(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An array for a swapped-in table, typed by value_type of btf_src_fd's
 * BTF (bpftool shows its fields): fd or -errno. */
int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries);
/* Whole arrays move with the batch syscalls (a few calls for a table of
 * a million entries); kernels without them get the per-entry loop. */
int rfs_read_array(int fd, __u32 value_size, __u32 entries, void *buf);
int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf);

__u32 rfs_obj_id(int fd);	/* of a prog or map fd, 0 if unknown */
/* One per-CPU value into out[0..n), each size bytes (not the stride). */
int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n);
/* Per-CPU value stride, as the kernel lays it out. */
static inline size_t rfs_percpu_stride(size_t size)
{
	return (size + 7) & ~(size_t)7;
}
/* A per-CPU map's value for key, one stride per *possible* CPU (more
 * than RFS_MAX_CPUS may be), in a new buffer, or NULL with errno. */
void *rfs_lookup_percpu(int fd, __u32 key, size_t size, int *ncpu);

/* The object pinned at <base>/<dir>/<name>, and pinning there (replaces). */
int rfs_get_pinned(const char *base, const char *dir, const char *name);
int rfs_pin_at(const char *base, int fd, const char *dir, const char *name,
	       char *err);

/*
 * A struct's pinned objects as a table: each at <base>/<dir>/<name> (dir
 * NULL: the caller's sub), its fd at offset fd in the struct.  Opening
 * checks that a map with a value_size has u32 keys and values of that
 * size (else -EPROTO: another build's pins would be read into wrong
 * structs), the only error written into err and ahead of a missing pin:
 * that returns the first one's -errno, the others opened, -1 for it.
 */
struct rfs_pin {
	const char *dir, *name;
	size_t fd;
	__u32 value_size;	/* 0: not checked */
};

static inline int *rfs_pin_fd(void *obj, const struct rfs_pin *p)
{
	return (int *)((char *)obj + p->fd);
}

int rfs_pins_open(const char *base, const char *sub, void *obj,
		  const struct rfs_pin *p, size_t n, char *err);
int rfs_pins_pin(const char *base, const char *sub, void *obj,
		 const struct rfs_pin *p, size_t n, char *err);
/* Every fd to -1, closing the open ones if close_them. */
void rfs_pins_reset(void *obj, const struct rfs_pin *p, size_t n,
		    bool close_them);

/* Return once every program that could still use a table it looked up
 * before a swap has finished: they run under RCU, and
 * MEMBARRIER_CMD_GLOBAL waits for a grace period. */
void rfs_wait_rcu(void);

/* Mount bpffs at /sys/fs/bpf unless pin_dir already lies on a bpffs;
 * under systemd (INVOCATION_ID set) refuse instead (-ENOTSUP). */
int rfs_pin_ensure_bpffs(const char *pin_dir, char *err, size_t len);
int rfs_pin_mkdirs(const char *path);	/* mkdir -p, mode 0700 */
/* flock(LOCK_EX|LOCK_NB) on the dir; returns the fd or -EBUSY. */
int rfs_pin_lock(const char *dir);
/* fn(path, ctx) on each pin under dir, never through a symlink; remove:
 * then unlink every entry and dir itself. */
typedef void (*rfs_pin_fn)(const char *path, void *ctx);
void rfs_pin_walk(const char *dir, bool remove, rfs_pin_fn fn, void *ctx);
/* snprintf into a PATH_MAX buffer, -ENAMETOOLONG if it does not fit. */
int rfs_path(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the datapath and its interfaces ---- */

/* dp's env, with the budget and every interface's tables as they are. */
static inline const struct rfs_if_env *rfs_dp_env(struct rfs_dp *dp)
{
	size_t i;

	dp->env.budget = dp->budget ? *dp->budget : (struct rfs_budget){ 0 };
	dp->env.tables_bytes = 0;
	for (i = 0; i < dp->n_ifs; i++)
		dp->env.tables_bytes += rfs_table_bytes(dp->ifs[i]->flow_cnt,
							dp->ifs[i]->rx_queues);
	return &dp->env;
}

/* The flow hash seed: whoever guesses it can send flows that all land in
 * one slot, so it comes from the kernel's CSPRNG or rfsd does not start. */
int rfs_seed_random(__u32 *seed, char *err, size_t len);

/* ---- rfs_iface.c: one interface, on the env rfs_dp.c hands it ---- */

void rfs_iface_free(struct rfs_if *ifc);	/* closes its fds */
void rfs_iface_unpin(const struct rfs_if_env *env, const char *name);
int rfs_iface_rename(const struct rfs_if_env *env, struct rfs_if *ifc,
		     const char *name);
/* Rewrite the config map from ifc: returns once no frame can see the
 * configuration it replaced. */
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows);
/* The configuration in use (the active slot) of an rfs_if_cfg map. */
int rfs_if_read_config(int cfg_fd, struct rfs_if_config *out);
/* Take the program off (if still ours) and remove the pins. */
int rfs_iface_detach(const struct rfs_if_env *env, struct rfs_if *ifc,
		     char *err);
int rfs_iface_attach(const struct rfs_if_env *env, const char *name,
		     const struct rfs_if_opts *opts, struct rfs_if **out,
		     char *err);
int rfs_iface_adopt(const struct rfs_if_env *env, const char *name,
		    struct rfs_if **out, char *err);
/* Detach every XDP program on ifindex (0: every interface of this
 * network namespace) that uses a map in ours (ids) and is not in keep.
 * How many, or -errno. */
int rfs_iface_sweep(const __u32 *ours, size_t n_ours, const __u32 *keep,
		    size_t n_keep, int ifindex);
int rfs_iface_explain(const struct rfs_if_env *env, struct rfs_if *ifc,
		      struct rfs_explain_in *in,
		      struct rfs_explain_queue **out, size_t *n, char *err);
void rfs_iface_refresh(const struct rfs_if_env *env, struct rfs_if *ifc);
/* Stamp the CPUs that started leaving at now_ms, forget those that stopped. */
void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms);

/* ---- rfs_devtab.c: the dev flow tables ---- */

/* A new table with its header entry written: its fd, or -errno. */
int rfs_devtab_create(int btf_src_fd, __u32 flow_cnt, __u32 rx_queues);
/* 1 when a flow in a replaced table has frames in flight, a local
 * flow counting until drain_jiffies after its last frame; 0 when none
 * has, or -errno. */
int rfs_devtab_busy(const struct rfs_if_env *env, int table_fd,
		    __u32 drain_jiffies);
/* The same on cpu, over the interface's current and previous table. */
int rfs_devtab_in_flight(const struct rfs_if_env *env,
			 const struct rfs_if *ifc, __u32 cpu);
/* The flows of the interface's current and previous table held on a CPU
 * of cpus, counted into by_cpu[their cpu] (RFS_MAX_CPUS entries, zeroed
 * by the caller).  0 or -errno. */
int rfs_devtab_holds(const struct rfs_if_env *env, const struct rfs_if *ifc,
		     const struct rfs_cpuset *cpus, struct rfs_hold_cpu *by_cpu);
int rfs_devtab_resize(const struct rfs_if_env *env, struct rfs_if *ifc,
		      __u32 flow_cnt, __u32 rx_queues, char *err);
/* Per CPU (env->nr_cpus entries): its cpumap kthread is asleep now;
 * quiet: asleep at every look for a second or more. */
void rfs_kthreads_idle(const struct rfs_if_env *env, bool *idle, bool *quiet);
void rfs_devtab_retire(const struct rfs_if_env *env, struct rfs_if *ifc);

#endif /* RFS_DP_INT_H */
