/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsd's event loop: one epoll set, and in it watches, each an fd and the
 * function its events go to.  A leaf: it knows nothing of what the fds
 * are.  A module embeds its watch in its own struct and finds that again
 * from the watch (rfsd_container_of()), so handlers need no global and no
 * call back into whoever set them up.
 */
#ifndef RFSD_LOOP_H
#define RFSD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rfsd_watch {
	int fd;
	uint32_t events;	/* as registered */
	void (*fn)(struct rfsd_watch *w, uint32_t events);
};

struct rfsd_loop {
	int epfd;
	bool stop;		/* rfsd_loop_run() returns once it is set */
	unsigned long removed;	/* watches removed so far */
};

#define rfsd_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* 0 or -errno. */
int rfsd_loop_init(struct rfsd_loop *l);
void rfsd_loop_fini(struct rfsd_loop *l);

int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
int rfsd_watch_mod(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w);

/* Run the handlers of the events until l->stop: 0, or -errno if epoll
 * fails.  A handler that removes a watch (a client it freed) ends the
 * batch: a later event of it would point to freed memory. */
int rfsd_loop_run(struct rfsd_loop *l);

#endif /* RFSD_LOOP_H */
