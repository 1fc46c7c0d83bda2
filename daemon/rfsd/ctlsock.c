// SPDX-License-Identifier: GPL-2.0
/* The control socket's file (ctlsock.h).  Moved from server.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctlsock.h"
#include "log.h"
#include "peercred.h"

static int mkdir_parents(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

/* A socket file at path: someone's listening (-EADDRINUSE) or stale. */
static int probe_stale(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	if (!r || errno == EAGAIN || errno == EINPROGRESS) {
		close(fd);
		return -EADDRINUSE;
	}
	close(fd);
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * Give the bound socket file to group gid.  A unix socket's file can only
 * be chowned by path, and a path can be swapped between bind() and the
 * chown by whoever may write its directory: so only in a directory no one
 * but root writes, and never through a symlink (AT_SYMLINK_NOFOLLOW).
 * Needs CAP_CHOWN (root is not in the group), which rfsd drops before it
 * listens (caps.c).  false: the file stays root's alone, and says why.
 */
static bool give_group(const char *path, gid_t gid, const char *name)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], *p;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (p)
		*(p == dir ? p + 1 : p) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		pr_warn("can't give control socket '%s' to group '%s': its directory '%s' is not root's alone; only root can use the socket\n",
			path, name, dir);
		return false;
	}
	if (fchownat(AT_FDCWD, path, (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW)) {
		pr_warn("can't give control socket '%s' to group '%s': %s; only root can use the socket\n",
			path, name, strerror(errno));
		return false;
	}
	return true;
}

int rfsd_ctlsock_bind(struct rfsd_ctlsock *cs, const char *path,
		      const gid_t *gid, const char *group, char *err,
		      size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, len, "can't bind control socket '%s': path too long (max %zu bytes)",
			 path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(cs->path, sizeof(cs->path), "%s", path);
	memcpy(sa.sun_path, path, strlen(path));
	e = mkdir_parents(path);
	if (e) {
		snprintf(err, len, "can't create the directory of control socket '%s': %s",
			 path, strerror(-e));
		return e;
	}
	e = probe_stale(path, &sa);
	if (e) {
		snprintf(err, len, "can't bind control socket '%s': %s", path,
			 e == -EADDRINUSE ? "another rfsd is listening there" :
			 e == -EEXIST ? "a file that is not a socket is in the way" :
			 strerror(-e));
		return e;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = -errno;
		snprintf(err, len, "can't create control socket: %s", strerror(-e));
		return e;
	}
	/* 0660 from the start, never wider, and no chmod() after: that
	 * follows links.  The group comes next; until then only root may
	 * connect, and nobody can before listen() anyway. */
	old = umask(0117);
	e = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (e) {
		snprintf(err, len, "can't bind control socket '%s': %s", path,
			 strerror(-e));
		close(fd);
		return e;
	}
	cs->bound = true;
	if (!stat(path, &st)) {
		cs->dev = st.st_dev;
		cs->ino = st.st_ino;
	}
	if (gid)
		give_group(path, *gid, group);
	return fd;
}

void rfsd_ctlsock_unlink(struct rfsd_ctlsock *cs)
{
	struct stat st;

	/* a newer rfsd may have taken the path over: leave its socket */
	if (cs->bound && !stat(cs->path, &st) && st.st_dev == cs->dev &&
	    st.st_ino == cs->ino)
		unlink(cs->path);
}
