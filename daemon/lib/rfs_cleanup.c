// SPDX-License-Identifier: GPL-2.0
/*
 * Programs nobody owns.  An rfs_xdp attached to an interface is owned by
 * the datapath that pinned it; one that no pin anywhere in bpffs refers
 * to (rfsd was killed between attaching and pinning, or its pins were
 * removed by hand) would steer for ever with nobody to detach it.  rfsd
 * removes such orphans when it starts, and `rfsd --cleanup` with them
 * everything its pin dir holds.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "rfs_bpf.h"
#include "rfs_dp.h"
#include "rfs_pin.h"

#define RFS_XDP_PROG_NAME	"rfs_xdp"

/* The ids of every program pinned anywhere under the bpffs mounts. */
static __u32 *rfs_pinned_ids;
static size_t rfs_n_pinned, rfs_cap_pinned;

static int rfs_note_pin(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd;

	/* an rfs_xdp is pinned as <pin dir>/v<N>/if/<name>/prog: open only
	 * those, not every map and link pinned on the host */
	if (type != FTW_F || strcmp(path + ftw->base, "prog"))
		return 0;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.id &&
	    (info.type == BPF_PROG_TYPE_XDP ||
	     /* under libxdp's dispatcher our program is an extension */
	     info.type == BPF_PROG_TYPE_EXT)) {
		if (rfs_n_pinned == rfs_cap_pinned) {
			size_t cap = rfs_cap_pinned ? rfs_cap_pinned * 2 : 64;
			__u32 *n = realloc(rfs_pinned_ids, cap * sizeof(*n));

			if (!n) {
				close(fd);
				return 1;
			}
			rfs_pinned_ids = n;
			rfs_cap_pinned = cap;
		}
		rfs_pinned_ids[rfs_n_pinned++] = info.id;
	}
	close(fd);
	return 0;
}

static void rfs_collect_pinned(void)
{
	char line[1024], mnt[512], type[64];
	FILE *f;

	rfs_n_pinned = 0;
	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", mnt, type) == 2 &&
		    !strcmp(type, "bpf"))
			nftw(mnt, rfs_note_pin, 16, FTW_PHYS | FTW_MOUNT);
	fclose(f);
}

/* How long an attach in another rfsd may take to pin its program. */
#define RFS_ORPHAN_SETTLE_S	2

/* Loaded less than min_age_s seconds ago: it may be an attach in
 * progress in another rfsd that has not pinned it yet. */
static bool rfs_too_young(__u32 id, unsigned int min_age_s)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct timespec now;
	bool young = true;
	int fd;

	if (!min_age_s)
		return false;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return true;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    !clock_gettime(CLOCK_BOOTTIME, &now))
		young = (__u64)now.tv_sec * 1000000000ull + now.tv_nsec -
			info.load_time < (__u64)min_age_s * 1000000000ull;
	close(fd);
	return young;
}

static bool rfs_is_pinned(__u32 id)
{
	size_t i;

	for (i = 0; i < rfs_n_pinned; i++)
		if (rfs_pinned_ids[i] == id)
			return true;
	return false;
}

/* Detach rfs_xdp programs no pin refers to and loaded at least min_age_s
 * seconds ago, on every interface of this network namespace.  Returns how
 * many were removed. */
int rfs_sweep_orphans(unsigned int min_age_s)
{
	struct if_nameindex *ifs, *i;
	bool settled = false;
	int removed = 0;

	ifs = if_nameindex();
	if (!ifs)
		return -errno;
	rfs_collect_pinned();
	for (i = ifs; i->if_index; i++) {
		struct xdp_multiprog *mp;
		struct xdp_program *p;
		enum xdp_attach_mode mode;

		mp = xdp_multiprog__get_from_ifindex(i->if_index);
		if (!mp || libxdp_get_error(mp))
			continue;
		mode = xdp_multiprog__attach_mode(mp);
		p = xdp_multiprog__is_legacy(mp) ?
			xdp_multiprog__main_prog(mp) :
			xdp_multiprog__next_prog(NULL, mp);
		for (; p; p = xdp_multiprog__is_legacy(mp) ? NULL :
			      xdp_multiprog__next_prog(p, mp)) {
			__u32 id = xdp_program__id(p);
			int e;

			if (strcmp(xdp_program__name(p), RFS_XDP_PROG_NAME) ||
			    rfs_is_pinned(id) || rfs_too_young(id, min_age_s))
				continue;
			/* Removing at any age (rfsd --cleanup): a program
			 * this young may be another rfsd's attach whose pin
			 * is a moment away; look at the pins again once. */
			if (!min_age_s && !settled &&
			    rfs_too_young(id, RFS_ORPHAN_SETTLE_S)) {
				sleep(RFS_ORPHAN_SETTLE_S);
				rfs_collect_pinned();
				settled = true;
				if (rfs_is_pinned(id))
					continue;
			}
			e = xdp_program__detach(p, i->if_index, mode, 0);
			if (e) {
				pr_warn("%s: can't detach orphaned rfs_xdp (id %u): %s\n",
					i->if_name, id, strerror(-e));
				continue;
			}
			rfs_log_iface(RFS_LOG_INFO, i->if_name, i->if_index,
				      "detached orphaned rfs_xdp (id %u): no pin refers to it",
				      id);
			removed++;
		}
		xdp_multiprog__close(mp);
	}
	if_freenameindex(ifs);
	free(rfs_pinned_ids);
	rfs_pinned_ids = NULL;
	rfs_cap_pinned = rfs_n_pinned = 0;
	return removed;
}

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
			rfs_pin_remove_tree_dir(path);
	closedir(d);
	rmdir(pin_dir);	/* only if empty: someone else's pins stay */
}

int rfs_dp_cleanup(const char *pin_dir, char *err)
{
	struct rfs_dp_opts o = { .pin_dir = pin_dir };
	char path[PATH_MAX];
	struct rfs_dp *dp;
	bool adopted;
	int e, n;

	if (rfs_path(path, "%s/%s/maps/%s", pin_dir, RFS_PIN_LAYOUT,
		     RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				pin_dir);
	e = -ENOENT;
	if (rfs_pin_exists(path)) {
		/* Adopting takes the pin dir's lock (a running rfsd holds
		 * it) and finds every interface the datapath owns. */
		e = rfs_dp_open(&dp, &o, &adopted, err);
		if (e && e != -EPROTO)
			return e;
		if (!e) {
			rfs_dp_close(dp, true);
			pr_info("removed the datapath pinned under %s\n",
				pin_dir);
		}
	}
	if (e && rfs_pin_exists(pin_dir)) {
		/* Pins of another build (other sizes, another layout
		 * version) or half made: their programs become orphans,
		 * removed below. */
		int lock = rfs_pin_lock(pin_dir);

		if (lock < 0)
			return rfs_errf(err, lock,
					lock == -EBUSY ?
					"pin dir '%s' is in use by a running rfsd; stop it first" :
					"can't lock pin dir '%s': %s",
					pin_dir, strerror(-lock));
		/* every layout's tree (v1/, v2/ ...), then the dir if empty */
		rfs_remove_layouts(pin_dir);
		close(lock);
		pr_info("removed the pins under %s\n", pin_dir);
	}
	n = rfs_sweep_orphans(0);
	if (n < 0)
		return rfs_errf(err, n, "can't list interfaces: %s",
				strerror(-n));
	return 0;
}
