/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capabilities rfsd keeps while it runs, the same set as the unit's
 * CapabilityBoundingSet (systemd/rfsd.service.in).
 */
#ifndef RFSD_CAPS_H
#define RFSD_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Drop every capability but CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN,
 * CAP_SYS_ADMIN, CAP_SYS_PTRACE and, if keep_nice (cpumap_kthread_sched
 * is not kernel), CAP_SYS_NICE from the bounding set (when it may: that
 * takes CAP_SETPCAP), the ambient and inheritable sets, and the permitted
 * and effective ones.  The names of those it kept go in kept
 * ("cap_bpf,..."), how many it dropped from the effective set in
 * dropped.  0 or -errno.
 */
int rfsd_caps_drop(bool keep_nice, char *kept, size_t len, int *dropped);

#endif /* RFSD_CAPS_H */
