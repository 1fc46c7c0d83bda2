// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's features (rfs_features.c) as rfsd shows them, logged at
 * start so that an operator sees what was chosen and why before anything
 * steers.  And the cgroup v2 root, where sockops sees every socket of the
 * host: the mount table says where (hybrid hosts, containers).
 */
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "rfsd.h"

bool rfsd_print_kernel(FILE *out, const struct rfs_kfeatures *f)
{
	struct rfs_feat_report r;
	char line[512];
	int i;

	rfs_kjudge(f, &r);
	snprintf(line, sizeof(line), "kernel %s%s: flows %s", f->release,
		 f->faked ? " (features faked by RFS_TEST_FEATURES)" : "",
		 r.order_kept ? "kept in order" : "NOT kept in order");
	for (i = 0; i <= r.n; i++) {
		if (out)
			fprintf(out, "%s\n", line);
		else
			pr_info("%s\n", line);
		if (i < r.n)
			snprintf(line, sizeof(line), "  %-14s %-9s %s: %s",
				 r.line[i].name,
				 rfs_feat_level_name(r.line[i].level),
				 r.line[i].value, r.line[i].why);
	}
	return r.order_kept;
}

void rfsd_log_kernel(const struct rfs_dp *dp, bool allow_unordered)
{
	if (rfsd_print_kernel(NULL, &dp->feat))
		pr_info("kernel: flows are kept in order\n");
	else if (allow_unordered)
		pr_warn("kernel: flows can NOT be kept in order on this kernel; attaching anyway (allow_unordered)\n");
	else
		pr_warn("kernel: flows can NOT be kept in order on this kernel; attach is refused unless allow_unordered = yes or rfsctl attach --allow-unordered\n");
}

static struct json_object *lines_json(const struct rfs_feat_report *r, int from)
{
	struct json_object *a = json_object_new_array(), *o;
	int i;

	for (i = from; i < r->n; i++) {
		o = json_object_new_object();
		rfsd_add(o, "name", rfsd_jstr(r->line[i].name));
		rfsd_add(o, "level",
			 rfsd_jstr(rfs_feat_level_name(r->line[i].level)));
		rfsd_add(o, "value", rfsd_jstr(r->line[i].value));
		rfsd_add(o, "why", rfsd_jstr(r->line[i].why));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *rfsd_kernel_json(struct rfs_dp *dp, bool allow_unordered)
{
	const struct rfs_kfeatures *f = &dp->feat;
	struct json_object *o = json_object_new_object(), *ifs;
	struct rfs_feat_report r;
	size_t i;

	rfs_kjudge(f, &r);
	rfsd_add(o, "release", rfsd_jstr(f->release));
	rfsd_add(o, "order_kept", rfsd_jbool(r.order_kept));
	rfsd_add(o, "allow_unordered", rfsd_jbool(allow_unordered));
	rfsd_add(o, "faked", rfsd_jbool(f->faked));
	rfsd_add(o, "features", lines_json(&r, 0));
	ifs = json_object_new_object();
	for (i = 0; i < dp->n_ifs; i++) {
		struct rfs_if *ifc = dp->ifs[i];
		struct rfs_if_facts facts = {
			.native = ifc->mode == RFS_XDP_NATIVE,
			.gro_flush_timeout = rfs_if_gro_flush_timeout(ifc->name),
		};
		int n = r.n;

		rfs_kjudge_iface(f, &facts, &r);
		rfsd_add(ifs, ifc->name, lines_json(&r, n));
		r.n = n;
	}
	rfsd_add(o, "interfaces", ifs);
	return o;
}

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
