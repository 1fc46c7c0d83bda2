/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the modes, as the config, the command line, the control
 * protocol and the logs spell them: one table per enum, and its lookups
 * both ways.  Header-only (no libbpf, no state), so rfsctl, rfsd's config
 * parser and the fuzz targets use it without linking the datapath.
 */
#ifndef RFS_NAMES_H
#define RFS_NAMES_H

#include <errno.h>
#include <string.h>

#include "rfs_common.h"

/* How the socket-side programs hook the kernel (rfsd --trace-mode). */
enum rfs_trace_mode {
	RFS_TRACE_AUTO,		/* tp_btf, else fexit, else kprobe */
	RFS_TRACE_TP_BTF,
	RFS_TRACE_FEXIT,
	RFS_TRACE_KPROBE,
	RFS_TRACE_NONE,		/* no socket hook loaded: reported, never
				   asked for (not in the names table) */
};

/* NULL-terminated, indexed by enum rfs_xdp_mode; "auto" first, the way
 * rfsctl's help lists them.  Static in a header: each user has its copy,
 * and none warns about it unused. */
static const char *const rfs_xdp_mode_names[] = {
	[RFS_XDP_AUTO] = "auto",
	[RFS_XDP_NATIVE] = "native",
	[RFS_XDP_GENERIC] = "generic",
	NULL,
};

/* NULL-terminated, indexed by enum rfs_trace_mode. */
static const char *const rfs_trace_mode_names[] = {
	[RFS_TRACE_AUTO] = "auto",
	[RFS_TRACE_TP_BTF] = "tp_btf",
	[RFS_TRACE_FEXIT] = "fexit",
	[RFS_TRACE_KPROBE] = "kprobe",
	NULL,
};

/* names[v], or names[0] (the "auto" of both tables) for a value out of
 * range. */
static inline const char *rfs_name_of(const char *const *names, unsigned int v)
{
	unsigned int n = 0;

	while (names[n])
		n++;
	return names[v < n ? v : 0];
}

/* The index of s in names: 0 and *v, or -EINVAL if it is none of them. */
static inline int rfs_name_parse(const char *const *names, const char *s,
				 unsigned int *v)
{
	unsigned int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s)) {
			*v = i;
			return 0;
		}
	return -EINVAL;
}

static inline const char *rfs_xdp_mode_name(enum rfs_xdp_mode mode)
{
	return rfs_name_of(rfs_xdp_mode_names, mode);
}

/* "auto", "native", "generic" -> mode; -EINVAL for anything else. */
static inline int rfs_xdp_mode_parse(const char *s, enum rfs_xdp_mode *mode)
{
	unsigned int v;
	int e = rfs_name_parse(rfs_xdp_mode_names, s, &v);

	if (!e)
		*mode = v;
	return e;
}

static inline const char *rfs_trace_mode_name(enum rfs_trace_mode mode)
{
	return mode == RFS_TRACE_NONE ? "none" :
	       rfs_name_of(rfs_trace_mode_names, mode);
}

/* "auto", "tp_btf", "fexit", "kprobe" -> mode; -EINVAL for anything else. */
static inline int rfs_trace_mode_parse(const char *s, enum rfs_trace_mode *mode)
{
	unsigned int v;
	int e = rfs_name_parse(rfs_trace_mode_names, s, &v);

	if (!e)
		*mode = v;
	return e;
}

#endif /* RFS_NAMES_H */
