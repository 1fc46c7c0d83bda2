/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUs leaving an interface, as rfsd shows and watches them (leaving.c).
 * A CPU taken out of an interface's set keeps its flows until each is
 * proven drained (include/rfs_order.h), and a flow that never leaves a
 * gap never is: status, set cpus and /metrics (through status) show each
 * leaving CPU, since when, and the flows it waits for with the reason
 * (daemon/lib/rfs_dp.h), and rfsd warns when one waits past
 * leaving_warn_seconds, naming them.
 */
#ifndef RFSD_LEAVING_H
#define RFSD_LEAVING_H

#include <json.h>

#include "rfs_dp.h"

/* Add "leaving" (an array, one object per leaving CPU) and "held_flows"
 * to the interface object o of a status or set reply.  Neither when the
 * flows can't be read (the reason is logged at debug). */
void rfsd_if_leaving_json(struct rfs_dp *dp, struct rfs_if *ifc,
			  struct json_object *o);

/* On rfsd's timer: warn of each CPU of each interface still leaving
 * after bound_s seconds (0: never), naming the flows it waits for. */
void rfsd_leaving_tick(struct rfs_dp *dp, __u32 bound_s);

#endif /* RFSD_LEAVING_H */
