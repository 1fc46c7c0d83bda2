// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's features as rfsd shows them: a log line each at start (so
 * an operator sees what was chosen and why before anything steers), and
 * the "kernel" block of `rfsctl status`.  The findings and their meaning
 * come from the library (rfs_features.c, rfs_kjudge.c).
 */
#include "commands.h"
#include "kernel.h"
#include "log.h"

void rfsd_log_kernel(const struct rfs_dp *dp, bool allow_unordered)
{
	const struct rfs_kfeatures *f = rfs_dp_kfeatures(dp);
	struct rfs_feat_report r;
	int i;

	rfs_kjudge(f, &r);
	pr_info("kernel %s%s:\n", f->release,
		f->faked ? " (features faked by RFS_TEST_FEATURES)" : "");
	for (i = 0; i < r.n; i++)
		pr_info("  %-14s %-9s %s: %s\n", r.line[i].name,
			rfs_feat_level_name(r.line[i].level), r.line[i].value,
			r.line[i].why);
	if (r.order_kept)
		pr_info("kernel: flows are kept in order\n");
	else if (allow_unordered)
		pr_warn("kernel: flows can NOT be kept in order on this kernel; attaching anyway (allow_unordered)\n");
	else
		pr_warn("kernel: flows can NOT be kept in order on this kernel; attach is refused unless allow_unordered = yes or rfsctl attach --allow-unordered\n");
}

bool rfsd_print_kernel(FILE *out, const struct rfs_kfeatures *f)
{
	struct rfs_feat_report r;
	int i;

	rfs_kjudge(f, &r);
	fprintf(out, "kernel %s%s: flows %s\n", f->release,
		f->faked ? " (features faked by RFS_TEST_FEATURES)" : "",
		r.order_kept ? "kept in order" : "NOT kept in order");
	for (i = 0; i < r.n; i++)
		fprintf(out, "  %-14s %-9s %s: %s\n", r.line[i].name,
			rfs_feat_level_name(r.line[i].level), r.line[i].value,
			r.line[i].why);
	return r.order_kept;
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
	const struct rfs_kfeatures *f = rfs_dp_kfeatures(dp);
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
	for (i = 0; i < rfs_dp_if_count(dp); i++) {
		struct rfs_if *ifc = rfs_dp_if_at(dp, i);
		struct rfs_if_facts facts = {
			.native = rfs_if_mode(ifc) == RFS_XDP_NATIVE,
			.gro_flush_timeout = rfs_if_gro_flush_timeout(rfs_if_name(ifc)),
		};
		int n = r.n;

		rfs_kjudge_iface(f, &facts, &r);
		rfsd_add(ifs, rfs_if_name(ifc), lines_json(&r, n));
		r.n = n;
	}
	rfsd_add(o, "interfaces", ifs);
	return o;
}
