// SPDX-License-Identifier: GPL-2.0
/* The flow hash seed; see rfs_dp_int.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "rfs_dp_int.h"

int rfs_seed_random(__u32 *seed, char *err, size_t len)
{
	__u32 v;
	ssize_t n;

	/* flags 0: block until the pool is initialised rather than take
	 * early-boot bytes; a 4-byte read is never short once it is */
	do {
		n = getrandom(&v, sizeof(v), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v)) {
		int e = n < 0 ? errno : EIO;

		snprintf(err, len,
			 "can't seed the flow hash: getrandom: %s; refusing to start with a predictable seed",
			 n < 0 ? strerror(e) : "short read");
		return -e;
	}
	*seed = v;
	return 0;
}
