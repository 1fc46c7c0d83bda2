/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition (format 0.0.4) of what rfsd reports, one
 * module for both outputs: rfsd's /metrics (daemon/rfsd/metrics.c) and
 * `rfsctl stats --format prometheus`.  Both gather the same snapshot with
 * the same control requests -- status, stats, and stats for each attached
 * interface -- each through its own transport (a callback), and hand it to
 * the same formatter, so the two cannot drift.  json-c and libc only:
 * rfsctl links it, and tests/unit/test_prom.c runs the formatter on a
 * fixed snapshot.
 *
 * The snapshot (what rfs_prom_collect() builds, rfs_prom_format() reads):
 *
 *	{"status": <status result>, "stats": <stats result, all interfaces>,
 *	 "interfaces": [<stats result of one interface>, ...]}
 *
 * (results as docs/protocol.md describes them).  Interface counters are
 * exposed per interface and CPU from "interfaces", datapath-wide ones per
 * CPU from "stats"; a counter key the formatter has no text for (a newer
 * rfsd's) is still exposed, per CPU, with a generic HELP.
 */
#ifndef RFS_PROM_H
#define RFS_PROM_H

#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#define RFS_PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/*
 * Run one control request (req, consumed: {"cmd": ..., ...}) and give its
 * result object (*result, the caller's to put).  0, or -errno with the
 * reason in err (the daemon's own message when it refused).
 */
typedef int (*rfs_prom_call_fn)(void *ctx, struct json_object *req,
				struct json_object **result, char *err,
				size_t len);

/*
 * The snapshot, through call.  An interface detached between status and
 * its stats (-ENOENT) is left out; any other failure fails the whole:
 * -errno, with err saying which request and why.
 */
int rfs_prom_collect(rfs_prom_call_fn call, void *ctx,
		     struct json_object **snap, char *err, size_t len);

/* The exposition of snap on f.  0, or -EINVAL if snap lacks "status" or
 * "stats" (nothing is written then). */
int rfs_prom_format(FILE *f, struct json_object *snap);

/* The same into a malloc()ed, NUL-terminated buffer (*len bytes before
 * the NUL).  0 or -errno. */
int rfs_prom_format_buf(struct json_object *snap, char **buf, size_t *len);

/* s as a label value: \ " and newline escaped (the format's rules). */
void rfs_prom_label_value(FILE *f, const char *s);

#endif /* RFS_PROM_H */
