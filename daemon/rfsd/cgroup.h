/* SPDX-License-Identifier: GPL-2.0 */
/* Where the cgroup v2 hierarchy is mounted, for the sockops program. */
#ifndef RFSD_CGROUP_H
#define RFSD_CGROUP_H

#include <stddef.h>

/* The cgroup2 mount of this mount namespace into buf: 0, or -errno with
 * the reason in err (len bytes). */
int rfsd_cgroup_root(char *buf, size_t size, char *err, size_t len);

#endif /* RFSD_CGROUP_H */
