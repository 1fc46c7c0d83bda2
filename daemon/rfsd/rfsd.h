/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rfsd's core parts share: the event loop, link events, the cgroup
 * root and the kernel's features as rfsd shows them.
 *
 * The loop is one epoll set of watches, each an fd and the function its
 * events go to.  A module embeds its watch in its own struct and finds
 * that again from the watch (rfsd_container_of()), so handlers need no
 * global and no call back into whoever set them up.
 */
#ifndef RFSD_H
#define RFSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json.h>

#include "rfs_dp.h"

struct rfsd_watch {
	int fd;
	uint32_t events;	/* as registered */
	void (*fn)(struct rfsd_watch *w, uint32_t events);
};

struct rfsd_loop {
	int epfd;		/* epoll_create1()'s */
	bool stop;		/* rfsd_loop_run() returns once it is set */
	unsigned long removed;	/* watches removed so far */
};

#define rfsd_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
int rfsd_watch_mod(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w);
/* A timerfd firing every ms as w: 0 or -errno.  Its handler takes the
 * expirations with rfsd_timer_ack(), or it fires again at once. */
int rfsd_timer_add(struct rfsd_loop *l, struct rfsd_watch *w, long ms);
void rfsd_timer_ack(struct rfsd_watch *w);
/* Run the handlers of the events until l->stop: 0, or -errno if epoll
 * fails.  A handler that removes a watch (a client it freed) ends the
 * batch: a later event of it would point to freed memory. */
int rfsd_loop_run(struct rfsd_loop *l);

/* Link and default route events (netlink.c), handed to the interfaces. */
struct rfsd_ifaces;
struct rfsd_netlink;

int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err, size_t len);
void rfsd_netlink_close(struct rfsd_netlink *nl);	/* NULL is fine */

/* The cgroup2 mount of this mount namespace into buf, for the sockops
 * program: 0, or -errno with the reason in err (len bytes). */
int rfsd_cgroup_root(char *buf, size_t size, char *err, size_t len);

/* rfsd --features: the kernel's lines on out (NULL: in the log); true if
 * flows are kept in order.  rfsd_log_kernel(): at start, and what that
 * means for attach. */
bool rfsd_print_kernel(FILE *out, const struct rfs_kfeatures *f);
void rfsd_log_kernel(const struct rfs_dp *dp, bool allow_unordered);
/* status: {"release", "order_kept", "allow_unordered", "faked",
 * "features": [..], "interfaces": {name: [..]}} */
struct json_object *rfsd_kernel_json(struct rfs_dp *dp, bool allow_unordered);

#endif /* RFSD_H */
