/* SPDX-License-Identifier: GPL-2.0 */
/* What the kernel offers the datapath: rfsd's log lines at start and the
 * "kernel" block of the status reply (rfs_dp.h has the findings). */
#ifndef RFSD_KERNEL_H
#define RFSD_KERNEL_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "rfs_dp.h"

/* rfsd --features: the same lines on f; true if flows are kept in order. */
bool rfsd_print_kernel(FILE *out, const struct rfs_kfeatures *f);
/* One line per feature, then the verdict; once, at start. */
void rfsd_log_kernel(const struct rfs_dp *dp, bool allow_unordered);
/* {"release", "order_kept", "allow_unordered", "faked", "features": [..],
 *  "interfaces": {name: [..]}} */
struct json_object *rfsd_kernel_json(struct rfs_dp *dp, bool allow_unordered);

#endif /* RFSD_KERNEL_H */
