/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition (format 0.0.4) of rfsd's status and
 * stats, for both rfsd's /metrics and `rfsctl stats --format prometheus`:
 * the same requests, each through its own transport (a callback), and
 * the same formatter, so the two cannot drift.  The snapshot:
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

#define RFS_PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/* Run one control request (req, consumed) into *result (the caller puts
 * it): 0, or -errno with the reason in err. */
typedef int (*rfs_prom_call_fn)(void *ctx, struct json_object *req,
				struct json_object **result, char *err,
				size_t len);

/* The snapshot, through call.  An interface detached between status and
 * its stats (-ENOENT) is left out; any other failure fails the whole. */
int rfs_prom_collect(rfs_prom_call_fn call, void *ctx,
		     struct json_object **snap, char *err, size_t len);

/* The exposition of snap on f, or in a malloc()ed string; -EINVAL (and
 * nothing written) if snap lacks "status" or "stats". */
int rfs_prom_format(FILE *f, struct json_object *snap);
int rfs_prom_format_buf(struct json_object *snap, char **buf, size_t *len);

/* key is a counter (or gauge) of stats counted datapath-wide, not per
 * interface. */
bool rfs_prom_global(const char *key);

/* s as a label value: \ " and newline escaped. */
void rfs_prom_label_value(FILE *f, const char *s);

#endif /* RFS_PROM_H */
