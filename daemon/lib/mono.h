/* SPDX-License-Identifier: GPL-2.0 */
/* The monotonic clock, for deadlines and rates that a change of the
 * wall clock must not bend. */
#ifndef RFS_MONO_H
#define RFS_MONO_H

#include <time.h>

static inline long long rfs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long long rfs_mono_ms(void)
{
	return rfs_mono_ns() / 1000000;
}

#endif /* RFS_MONO_H */
