// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel and an interface do that the local path's ordering
 * depends on (include/rfs_order.h): how long NAPI GRO may hold a frame
 * after the poll that received it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "rfs_features.h"

/* CONFIG_HZ from /boot/config-<release> or /proc/config.gz; 0 if unknown. */
int rfs_kernel_hz(void)
{
	char path[300], line[256];
	struct utsname u;
	gzFile f = NULL;
	int hz = 0;

	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "r");	/* reads plain files too */
	}
	if (!f)
		f = gzopen("/proc/config.gz", "r");
	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
			break;
	gzclose(f);
	return hz > 0 ? hz : 0;
}

/* An interface's gro_flush_timeout in ns; -1 if unreadable. */
long long rfs_if_gro_flush_timeout(const char *ifname)
{
	char path[300];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/gro_flush_timeout",
		 ifname);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void rfs_local_path_params(const char *ifname, bool no_attach,
			   struct rfs_local_params *p)
{
	int hz = rfs_kernel_hz();
	long long timeout = no_attach ? 0 : rfs_if_gro_flush_timeout(ifname);
	long long jiffy_ns;

	/* Unknown HZ: assume the shortest jiffy we know of (1000 Hz, flush
	 * of old packets only), which asks for the most waiting. */
	if (!hz)
		hz = 1000;
	jiffy_ns = 1000000000LL / hz;
	p->hz = hz;
	/*
	 * A NAPI poll lasts less than a jiffy.  With HZ < 1000 every poll
	 * end flushes NAPI GRO fully, so a frame passed up at jiffy J is out
	 * by J + 2.  With HZ >= 1000 a poll that used its whole budget
	 * flushes only skbs older than the current jiffy: the frame leaves
	 * at the first poll end at J + 1 or later, which a poll running from
	 * J + 1 into J + 2 may put after a frame of the same flow sent
	 * elsewhere in J + 2; so wait one jiffy more.  A gro_flush_timeout
	 * defers the flush by up to the timeout.
	 */
	p->drain_jiffies = hz >= 1000 ? 3 : 2;
	if (timeout > 0)
		p->drain_jiffies += (__u32)((timeout + jiffy_ns - 1) / jiffy_ns);
	/* Full flush at every poll end: a frame sent through this CPU's own
	 * cpumap queue is processed only after that poll ended. */
	p->handover = hz < 1000 && timeout == 0;
}
