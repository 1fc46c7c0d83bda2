// SPDX-License-Identifier: GPL-2.0
/* The control socket's file (ctlsock.h).  Moved from server.c. */
#include <errno.h>
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

int rfsd_ctlsock_bind(struct rfsd_ctlsock *cs, const char *path, char *err,
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
	/* 0666 from the start, never wider: who may use it is decided at
	 * accept from the kernel's credentials of the peer (peercred.c),
	 * so the file needs no group and rfsd no CAP_CHOWN (ctlsock.h) */
	old = umask(0111);
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
	if (chmod(path, 0666))
		pr_warn("can't set mode of control socket '%s': %s\n", path,
			strerror(errno));
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
