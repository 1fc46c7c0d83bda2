// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/rfsd/config.c: rfsd_config_parse() on any file.  It must fail
 * with a message that names the file and line, or give a config that
 * keeps every promise rfsd.h makes of it.
 */
#include <errno.h>

#include "rfsd.h"
#include "fuzz.h"
#include "parse.h"

static void check_pow2(__u32 v, __u32 lo, __u32 hi, const char *what)
{
	RFS_FUZZ_CHECK(!v || !rfs_check_pow2(v, lo, hi), "%s %u", what, v);
}

static void check_path(const char *p, const char *what)
{
	RFS_FUZZ_CHECK(!p || p[0] == '/', "%s '%s'", what, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char name[] = "fuzz.conf";
	char err[RFSD_CONFIG_ERR_LEN];
	struct rfsd_config cfg;
	size_t i, j;
	FILE *f;
	int r;

	/* fmemopen() of 0 bytes is EINVAL: an empty file is /dev/null */
	f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	if (!f)
		abort();
	r = rfsd_config_parse(f, name, &cfg, err);
	fclose(f);
	if (r) {
		RFS_FUZZ_CHECK(r < 0, "returned %d", r);
		RFS_FUZZ_CHECK(!strncmp(err, "can't ", 6) && strstr(err, name),
			       "message '%s'", err);
		RFS_FUZZ_CHECK(!cfg.ifs && !cfg.n_ifs && !cfg.socket,
			       "a failed parse left a config");
		return 0;
	}
	RFS_FUZZ_CHECK(!err[0], "parsed, yet message '%s'", err);
	check_pow2(cfg.sock_flow_entries, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX,
		   "sock_flow_entries");
	check_path(cfg.socket, "socket");
	check_path(cfg.pin_dir, "pin_dir");
	check_path(cfg.cgroup, "cgroup");
	for (i = 0; i < cfg.n_ifs; i++) {
		const struct rfsd_iface_cfg *ifc = &cfg.ifs[i];
		struct rfs_cpuset cpus;
		char a[300], b[300];

		/* a section names one interface or holds pattern words */
		RFS_FUZZ_CHECK(ifc->match ? !ifc->name[0] && ifc->match[0] :
			       rfs_ifname_valid(ifc->name), "section '%s'",
			       rfsd_iface_cfg_label(ifc, a, sizeof(a)));
		check_pow2(ifc->flow_cnt, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX,
			   "flow_cnt");
		RFS_FUZZ_CHECK(ifc->mode == RFS_XDP_AUTO ||
			       ifc->mode == RFS_XDP_NATIVE ||
			       ifc->mode == RFS_XDP_GENERIC, "mode %d",
			       ifc->mode);
		/* a cpus value parsed is one a node can resolve */
		RFS_FUZZ_CHECK(!rfsd_cpus_resolve(ifc->cpus, NULL, &cpus),
			       "cpus '%s'", ifc->cpus);
		for (j = 0; j < i; j++)
			RFS_FUZZ_CHECK(strcmp(rfsd_iface_cfg_label(&cfg.ifs[j], b,
								   sizeof(b)), a),
				       "%s twice", a);
		RFS_FUZZ_CHECK(ifc->match ||
			       rfsd_config_iface(&cfg, ifc->name) == ifc,
			       "lookup of '%s'", ifc->name);
	}
	rfsd_config_free(&cfg);
	return 0;
}
