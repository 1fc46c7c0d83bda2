// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "rfs_common.h"
#include "rfs_pin.h"

#define RFS_BPFFS_ROOT "/sys/fs/bpf"

int rfs_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static bool on_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int rfs_pin_ensure_bpffs(const char *pin_dir, char *err, size_t len)
{
	char parent[PATH_MAX];
	char *slash;

	/* The pin dir itself, or the nearest existing parent, decides. */
	snprintf(parent, sizeof(parent), "%s", pin_dir);
	while (access(parent, F_OK) && (slash = strrchr(parent, '/')) &&
	       slash != parent)
		*slash = '\0';
	if (on_bpffs(parent))
		return 0;
	if (strncmp(pin_dir, RFS_BPFFS_ROOT "/", strlen(RFS_BPFFS_ROOT) + 1)) {
		snprintf(err, len, "pin dir '%s' is not on a bpffs", pin_dir);
		return -EINVAL;
	}
	/* Under systemd rfsd runs in the unit's own mount namespace: a
	 * bpffs mounted there would go with the unit, pins and all. */
	if (getenv("INVOCATION_ID")) {
		snprintf(err, len,
			 "'%s' is not a bpffs, and under systemd rfsd won't mount one: in the unit's mount namespace it would vanish with rfsd, pins and all; mount it on the host (mount -t bpf bpf %s)",
			 RFS_BPFFS_ROOT, RFS_BPFFS_ROOT);
		return -ENOTSUP;
	}
	if (mount("bpf", RFS_BPFFS_ROOT, "bpf", 0, "mode=0700")) {
		int e = errno;

		snprintf(err, len, "can't mount bpffs at '%s': %s",
			 RFS_BPFFS_ROOT, strerror(e));
		return -e;
	}
	return 0;
}

int rfs_pin_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int rfs_pin_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	return fd;
}

bool rfs_pin_exists(const char *path)
{
	return !access(path, F_OK);
}

/*
 * Depth first under the directory dfd, never through a symlink: a link
 * under the pin dir may point anywhere, and rfsd --cleanup must remove
 * only what is there.  fn sees each pin by a path through dfd; remove
 * unlinks every entry (a link itself, not what it names).
 */
static void walk_at(int dfd, bool remove, rfs_pin_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = fdopendir(dfd);
	int sub;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode)) {
			sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				walk_at(sub, remove, fn, ctx);
		} else if (S_ISREG(st.st_mode) && fn &&
			   !rfs_path(path, "/proc/self/fd/%d/%s", dfd,
				     de->d_name)) {
			fn(path, ctx);
		}
		if (remove)
			unlinkat(dfd, de->d_name,
				 S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
	}
	closedir(d);
}

void rfs_pin_walk(const char *dir, bool remove, rfs_pin_fn fn, void *ctx)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0) {
		if (remove && (errno == ELOOP || errno == ENOTDIR))
			unlink(dir);	/* a link: itself only */
		return;
	}
	walk_at(dfd, remove, fn, ctx);
	if (remove)
		rmdir(dir);
}

void rfs_pin_remove_tree(const char *pin_dir)
{
	char base[PATH_MAX];

	if (rfs_path(base, "%s/%s", pin_dir, RFS_PIN_LAYOUT))
		return;
	rfs_pin_walk(base, true, NULL, NULL);
	rmdir(pin_dir);	/* only if empty: someone else's pins stay */
}
