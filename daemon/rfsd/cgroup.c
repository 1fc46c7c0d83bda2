// SPDX-License-Identifier: GPL-2.0
/*
 * Find the cgroup v2 root.  A sockops program attached there sees every
 * socket of the host, so that is rfsd's default.  The mount point differs:
 * /sys/fs/cgroup on unified hosts, /sys/fs/cgroup/unified on hybrid ones
 * (v1 controllers under /sys/fs/cgroup), elsewhere in containers.  So read
 * /proc/self/mountinfo rather than guess.
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

/* Higher is better: the hierarchy's own root, then the usual places. */
static int score(const char *root, const char *mnt)
{
	int s = 1;

	if (!strcmp(root, "/"))
		s += 4;
	if (!strcmp(mnt, "/sys/fs/cgroup"))
		s += 2;
	else if (!strcmp(mnt, "/sys/fs/cgroup/unified"))
		s += 1;
	return s;
}

/*
 * "36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw"
 *  id parent dev root mountpoint options [optional...] - fstype source ...
 */
static int parse_line(char *line, char **root, char **mnt)
{
	char *save = NULL, *tok, *f[5];
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = strtok_r(i ? NULL : line, " \n", &save);
		if (!f[i])
			return -EINVAL;
	}
	while ((tok = strtok_r(NULL, " \n", &save)) && strcmp(tok, "-"))
		;
	if (!tok)
		return -EINVAL;
	tok = strtok_r(NULL, " \n", &save);
	if (!tok || strcmp(tok, "cgroup2"))
		return -ENOENT;
	*root = f[3];
	*mnt = f[4];
	return 0;
}

int rfsd_cgroup_root(char *buf, size_t size, char *err, size_t len)
{
	char *line = NULL, *root, *mnt;
	size_t cap = 0;
	int best = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		int e = errno;

		snprintf(err, len, "can't read mount table '/proc/self/mountinfo': %s",
			 strerror(e));
		return -e;
	}
	while (getline(&line, &cap, f) > 0) {
		int s;

		if (parse_line(line, &root, &mnt))
			continue;
		unescape(root);
		unescape(mnt);
		s = score(root, mnt);
		if (s <= best || strlen(mnt) >= size)
			continue;
		best = s;
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
