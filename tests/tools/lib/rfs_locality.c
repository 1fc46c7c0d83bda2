// SPDX-License-Identifier: GPL-2.0
/* The counters of rfs_locality.h. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rfs_locality.h"
#include "rfs_toolutil.h"

enum { LOC_LOCAL, LOC_REMOTE, LOC_UNKNOWN, LOC_NR };

struct rfs_loc {
	_Atomic uint64_t w[LOC_NR];	/* the file's first words */
};

struct rfs_loc *rfs_loc_open(const char *path, int create)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rfs_loc *l;
	int fd;

	if (!path)
		return NULL;
	/* a new server counts from 0: a stale file must not add to it */
	fd = create ? open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
		    : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (create && ftruncate(fd, page)))
		rfs_tool_die("can't open stats file '%s': %s", path,
			     strerror(errno));
	if (!create) {
		off_t size = lseek(fd, 0, SEEK_END);

		if (size < (off_t)sizeof(*l))
			rfs_tool_die("can't use stats file '%s': %lld bytes, not a server's (--stats)",
				     path, (long long)size);
	}
	l = mmap(NULL, page, create ? PROT_READ | PROT_WRITE : PROT_READ,
		 MAP_SHARED, fd, 0);
	if (l == MAP_FAILED)
		rfs_tool_die("can't map stats file '%s': %s", path,
			     strerror(errno));
	close(fd);
	return l;
}

void rfs_loc_sample(struct rfs_loc *l, int fd, uint32_t *nrecv)
{
	socklen_t len = sizeof(int);
	int in_cpu = -1, k;

	if (!l || (*nrecv)++ % RFS_LOC_EVERY)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &in_cpu, &len) ||
	    in_cpu < 0)
		k = LOC_UNKNOWN;
	else
		k = in_cpu == sched_getcpu() ? LOC_LOCAL : LOC_REMOTE;
	/* counters only: no ordering with anything else is needed */
	atomic_fetch_add_explicit(&l->w[k], 1, memory_order_relaxed);
}

void rfs_loc_read(const struct rfs_loc *l, struct rfs_loc_snap *s)
{
	memset(s, 0, sizeof(*s));
	if (!l)
		return;
	s->local = atomic_load_explicit(&l->w[LOC_LOCAL], memory_order_relaxed);
	s->remote = atomic_load_explicit(&l->w[LOC_REMOTE], memory_order_relaxed);
	s->unknown = atomic_load_explicit(&l->w[LOC_UNKNOWN], memory_order_relaxed);
}

void rfs_loc_print(const struct rfs_loc_snap *a, const struct rfs_loc_snap *b,
		   FILE *f)
{
	uint64_t loc = b->local - a->local, rem = b->remote - a->remote;

	fprintf(f, " recv_local=%llu recv_remote=%llu recv_unknown=%llu",
		(unsigned long long)loc, (unsigned long long)rem,
		(unsigned long long)(b->unknown - a->unknown));
	if (loc + rem)
		fprintf(f, " locality_pct=%.1f", 100.0 * loc / (loc + rem));
	else
		fprintf(f, " locality_pct=-");
}

void rfs_loc_print_totals(const struct rfs_loc *l, FILE *f)
{
	struct rfs_loc_snap zero = { 0 }, now;

	if (!l)
		return;
	rfs_loc_read(l, &now);
	rfs_loc_print(&zero, &now, f);
}
