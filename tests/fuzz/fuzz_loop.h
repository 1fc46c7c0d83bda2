/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the targets that run one of rfsd's servers (fuzz_control,
 * fuzz_metrics): rfsd's epoll loop replaced by one that polls the
 * watched fds and runs their handlers until none is ready, so an input
 * plays the same way every time; CLOCK_MONOTONIC moved on at will, so
 * deadlines pass at once (libFuzzer times itself by CLOCK_REALTIME);
 * and no log.
 */
#ifndef RFS_FUZZ_LOOP_H
#define RFS_FUZZ_LOOP_H

#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "log.h"
#include "rfsd.h"

#define FUZZ_WATCHES	8

static struct rfsd_watch *watches[FUZZ_WATCHES];
static long long clock_skew_ns;

int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t ev)
{
	int i;

	for (i = 0; i < FUZZ_WATCHES; i++) {
		if (!watches[i]) {
			watches[i] = w;
			w->events = ev;
			return 0;
		}
	}
	errno = ENOSPC;
	return -ENOSPC;
}

int rfsd_watch_mod(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t ev)
{
	w->events = ev;
	return 0;
}

void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w)
{
	int i;

	for (i = 0; i < FUZZ_WATCHES; i++)
		if (watches[i] == w)
			watches[i] = NULL;
}

void rfsd_timer_ack(struct rfsd_watch *w)
{
	uint64_t n;

	while (read(w->fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
}

void rfs_log(enum rfs_log_level lvl, const char *fmt, ...)
{
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	long long ns;

	if (syscall(SYS_clock_gettime, id, ts))
		return -1;
	if (id != CLOCK_MONOTONIC)
		return 0;
	ns = ts->tv_sec * 1000000000LL + ts->tv_nsec + clock_skew_ns;
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
	return 0;
}

/* Run the handlers of every ready watch until none is; a timerfd due
 * within a few ms counts as ready (it would be by the next poll). */
static void fuzz_loop_run(void)
{
	bool again = true;
	int i, rounds = 0;

	while (again && rounds++ < 1000) {
		again = false;
		for (i = 0; i < FUZZ_WATCHES; i++) {
			struct rfsd_watch *w = watches[i];
			struct itimerspec its;
			struct pollfd p;

			if (!w)
				continue;
			p = (struct pollfd){ .fd = w->fd, .events = w->events };
			if (poll(&p, 1, 0) > 0 && p.revents) {
				/* poll's bits are epoll's; ERR and HUP come
				 * unasked */
				w->fn(w, p.revents);
				again = true;
			} else if (!timerfd_gettime(w->fd, &its) &&
				   !its.it_value.tv_sec && its.it_value.tv_nsec &&
				   its.it_value.tv_nsec < 5000000) {
				w->fn(w, POLLIN);
				again = true;
			}
		}
	}
	RFS_FUZZ_CHECK(rounds < 1000, "the loop never settles");
}

/* connect() that a signal can't cut short: libFuzzer's timeout alarm may
 * interrupt a blocking connect, which then completes on its own.  Aborts
 * on a real failure: the target can't run without its peer. */
static inline void fuzz_connect(int fd, const void *sa, socklen_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(int);
	int err = 0;

	if (fd >= 0 && !connect(fd, sa, len))
		return;
	if (fd < 0 || errno != EINTR) {
		perror("fuzz: can't connect");
		abort();
	}
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
		fprintf(stderr, "fuzz: can't connect: %s\n", strerror(err));
		abort();
	}
}

#endif /* RFS_FUZZ_LOOP_H */
