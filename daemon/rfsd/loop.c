// SPDX-License-Identifier: GPL-2.0
/* rfsd's event loop; see rfsd.h. */
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "log.h"
#include "rfsd.h"

static int watch_ctl(struct rfsd_loop *l, int op, struct rfsd_watch *w,
		     uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (epoll_ctl(l->epfd, op, w->fd, &ev))
		return -errno;
	w->events = events;
	return 0;
}

int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events)
{
	return watch_ctl(l, EPOLL_CTL_ADD, w, events);
}

int rfsd_watch_mod(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events)
{
	return watch_ctl(l, EPOLL_CTL_MOD, w, events);
}

void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w)
{
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	l->removed++;
}

int rfsd_timer_add(struct rfsd_loop *l, struct rfsd_watch *w, long ms)
{
	struct itimerspec its = {
		.it_interval = { ms / 1000, ms % 1000 * 1000000 },
		.it_value = { ms / 1000, ms % 1000 * 1000000 },
	};
	int e;

	w->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	if (timerfd_settime(w->fd, 0, &its, NULL) ||
	    rfsd_watch_add(l, w, EPOLLIN)) {
		e = -errno;
		close(w->fd);
		w->fd = -1;
		return e;
	}
	return 0;
}

void rfsd_timer_ack(struct rfsd_watch *w)
{
	uint64_t ticks;

	if (read(w->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		pr_debug("can't read a timerfd: %s\n", strerror(errno));
}

int rfsd_loop_run(struct rfsd_loop *l)
{
	struct epoll_event evs[32];
	int n, i;

	while (!l->stop) {
		n = epoll_wait(l->epfd, evs, 32, -1);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			pr_warn("can't wait for events: %s\n", strerror(e));
			return -e;
		}
		for (i = 0; i < n && !l->stop; i++) {
			struct rfsd_watch *w = evs[i].data.ptr;
			unsigned long removed = l->removed;

			w->fn(w, evs[i].events);
			if (l->removed != removed)
				break;
		}
	}
	return 0;
}
