// SPDX-License-Identifier: GPL-2.0
/*
 * Our programs nobody owns.  An XDP program is this datapath's by what it
 * is: it uses a map pinned under our pin dir (every interface's program
 * shares the core's cpumap), never by its name, so another rfsd's, with
 * its own pin dir and maps, is never touched.  The kernel records which
 * maps a program uses when it loads it, before any XDP link exists: a
 * restarted rfsd knows every program of its own at once, with no age to
 * wait out.  One whose interface pins name it is adopted
 * (rfs_iface_adopt); any other (rfsd was killed between attaching and
 * pinning, its pins were removed by hand) is detached before the control
 * socket serves, and before an attach to its interface
 * (rfs_dp_sweep_orphans(), rfs_iface_sweep()).  `rfsd --cleanup` removes
 * them all with the pins.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "log.h"
#include "rfs_dp_int.h"

struct rfs_ids {
	__u32 *v;
	size_t n, cap;
};

static void rfs_ids_add(struct rfs_ids *s, __u32 id)
{
	__u32 *v;

	if (s->n == s->cap) {
		v = realloc(s->v, (s->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return;
		s->v = v;
		s->cap = s->cap * 2 + 16;
	}
	s->v[s->n++] = id;
}

static void rfs_note_map(const char *path, void *ctx)
{
	int fd = bpf_obj_get(path);

	if (fd >= 0) {
		rfs_ids_add(ctx, rfs_obj_id(fd));
		close(fd);
	}
}

/* Every layout's tree (v1/, v2/ ...), then pin_dir if empty: anything
 * else in it is someone else's. */
static void rfs_remove_layouts(const char *pin_dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(pin_dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] == 'v' && de->d_name[1] >= '0' &&
		    de->d_name[1] <= '9' &&
		    !rfs_path(path, "%s/%s", pin_dir, de->d_name))
			rfs_pin_walk(path, true, NULL, NULL);
	closedir(d);
	rmdir(pin_dir);
}

int rfs_dp_cleanup(const char *pin_dir, char *err)
{
	struct rfs_dp_opts o = { .pin_dir = pin_dir };
	struct rfs_ids ours = { 0 };
	char path[PATH_MAX];
	struct rfs_dp *dp;
	int e, lock;

	if (rfs_path(path, "%s/%s/maps/%s", pin_dir, RFS_PIN_LAYOUT,
		     RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				pin_dir);
	lock = rfs_pin_lock(pin_dir);
	if (lock == -EBUSY)
		return rfs_errf(err, EBUSY,
				"pin dir '%s' is in use by a running rfsd; stop it first",
				pin_dir);
	/* What is ours, whatever the layout: the maps pinned here. */
	rfs_pin_walk(pin_dir, false, rfs_note_map, &ours);
	if (lock >= 0)
		close(lock);	/* adopting takes it again */
	e = -ENOENT;
	if (rfs_pin_exists(path)) {
		e = rfs_dp_open(&dp, &o, NULL, err);
		if (e && e != -EPROTO)
			goto out;
		if (!e) {
			rfs_dp_close(dp, true);
			pr_info("removed the datapath pinned under %s\n",
				pin_dir);
		}
	}
	if (rfs_pin_exists(pin_dir)) {
		/* Another build's pins, or half made: every layout's tree */
		lock = rfs_pin_lock(pin_dir);
		if (lock < 0) {
			e = rfs_errf(err, lock, lock == -EBUSY ?
				     "pin dir '%s' is in use by a running rfsd; stop it first" :
				     "can't lock pin dir '%s': %s",
				     pin_dir, strerror(-lock));
			goto out;
		}
		rfs_remove_layouts(pin_dir);
		close(lock);
		if (e)
			pr_info("removed the pins under %s\n", pin_dir);
	}
	e = ours.n ? rfs_iface_sweep(ours.v, ours.n, NULL, 0, 0) : 0;
	e = e < 0 ? rfs_errf(err, e, "can't list interfaces: %s",
			     strerror(-e)) : 0;
out:
	free(ours.v);
	return e;
}
