// SPDX-License-Identifier: GPL-2.0
/*
 * Find the cgroup v2 root.  A sockops program attached there sees every
 * socket of the host, so that is rfsd's default.  The mount point differs:
 * /sys/fs/cgroup on unified hosts, /sys/fs/cgroup/unified on hybrid ones
 * (v1 controllers under /sys/fs/cgroup), elsewhere in containers: so the
 * mount table says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

int rfsd_cgroup_root(char *buf, size_t size, char *err, size_t len)
{
	char *line = NULL, *sep, root[4096], mnt[4096];
	size_t cap = 0;
	int best = 0, score;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		int e = errno;

		snprintf(err, len, "can't read mount table '/proc/self/mountinfo': %s",
			 strerror(e));
		return -e;
	}
	/* "36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw":
	 * id parent dev root mountpoint options [optional...] - fstype ... */
	while (getline(&line, &cap, f) > 0) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		unescape(root);
		unescape(mnt);
		/* the hierarchy's own root first, then the usual places */
		score = 1 + 4 * !strcmp(root, "/") +
			2 * !strcmp(mnt, "/sys/fs/cgroup") +
			!strcmp(mnt, "/sys/fs/cgroup/unified");
		if (score <= best || strlen(mnt) >= size)
			continue;
		best = score;
		snprintf(buf, size, "%s", mnt);
	}
	free(line);
	fclose(f);
	if (!best) {
		snprintf(err, len,
			 "can't find the cgroup v2 root: no cgroup2 file system in /proc/self/mountinfo; mount one or use --cgroup");
		return -ENOENT;
	}
	return 0;
}
