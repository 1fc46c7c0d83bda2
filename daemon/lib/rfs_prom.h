/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition (format 0.0.4) of rfsd's status and
 * stats: one formatter for rfsd's /metrics and `rfsctl stats --format
 * prometheus`, each with its own transport (a callback).  The snapshot:
 *
 *	{"status": <status result>, "stats": <stats result, all interfaces>,
 *	 "interfaces": [<stats result of one interface>, ...]}
 *
 * Every counter of `rfsctl stats` is rfs_<key>_total, labelled interface
 * and cpu where it is counted per interface, cpu alone where
 * datapath-wide; one the formatter has no text for (a newer rfsd's) is
 * still exposed, per CPU, with a generic HELP.
 */
#ifndef RFS_PROM_H
#define RFS_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "rfs_common.h"

#define RFS_PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

enum rfs_ctr_kind {
	RFS_CTR_IF,		/* per interface and RX CPU */
	RFS_CTR_GLOBAL,		/* datapath-wide, per CPU */
	RFS_CTR_GAUGE,		/* a level, not a count */
	/* the kernel's, of the CPU's cpumap kthread: absent when unknown */
	RFS_CTR_KTHREAD,
	RFS_CTR_KWAIT,		/* the same, in ns: exposed in seconds */
};

/* One CPU's counters as rfsd's stats gathers them. */
struct rfs_cpu_ctrs {
	struct rfs_if_stats i; /* first: an IF counter's offset is its own */
	struct rfs_global_stats g;
	struct {
		__u64 backlog, kthread_runs, kthread_wait_ns;
	} k;
	bool have_kthread;
};

/* The counters of stats in their order: where each is in struct
 * rfs_cpu_ctrs, its key, and its help (of /metrics, and of rfsctl(8) as
 * test_docs.sh checks). */
struct rfs_ctr {
	const char *key;
	enum rfs_ctr_kind kind;
	size_t off;
	const char *help;
};

extern const struct rfs_ctr rfs_ctrs[];
extern const size_t rfs_n_ctrs;

/* Run one control request (req, consumed) into *result (the caller puts
 * it): 0, or -errno with the reason in err. */
typedef int (*rfs_prom_call_fn)(void *ctx, struct json_object *req,
				struct json_object **result, char *err,
				size_t len);

/* The snapshot, through call.  An interface detached between status and
 * its stats (-ENOENT) is left out; any other failure fails the whole. */
int rfs_prom_collect(rfs_prom_call_fn call, void *ctx,
		     struct json_object **snap, char *err, size_t len);

/* The exposition of snap on f; -EINVAL (and nothing written) if snap
 * lacks "status" or "stats". */
int rfs_prom_format(FILE *f, struct json_object *snap);

/* key is a counter (or gauge) of stats counted datapath-wide. */
bool rfs_prom_global(const char *key);

/* s with \ and newline escaped, and " too in a label value. */
void rfs_prom_escape(FILE *f, const char *s, bool label);

#endif /* RFS_PROM_H */
