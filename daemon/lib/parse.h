/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words of rfsd.conf, rfsctl's command line and the control protocol,
 * CPU lists among them, and the kernel's /proc and sysfs text: one parser
 * each, so "12abc" is not a number whatever it was for.  No allocation,
 * no I/O but rfs_cpuset_online(): the fuzz targets run them on anything.
 * They return 0, or -EINVAL for bad syntax and -ERANGE out of range.
 */
#ifndef RFS_PARSE_H
#define RFS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <linux/types.h>

#include "rfs_common.h"

/* Decimal digits only, at least one ("007" is 7): no sign, no blanks, no
 * hex, no suffix. */
int rfs_parse_u32(const char *s, __u32 *out);

/* A table size: a power of two (else -EDOM) in lo..hi. */
int rfs_check_pow2(__u32 n, __u32 lo, __u32 hi);

/* The kernel's dev_valid_name(): 1..IFNAMSIZ-1 bytes, not "." or "..",
 * no '/', ':' or white space. */
bool rfs_ifname_valid(const char *s);

/* A listening address, numeric only (no name lookup in a daemon's config):
 * "IPv4:PORT" or "[IPv6]:PORT", PORT 1..65535. */
int rfs_parse_hostport(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len);
/* A group name as useradd(8) takes them: [a-z_][a-z0-9_-]*, a '$' at
 * the end allowed, at most 32 characters. */
bool rfs_group_name_valid(const char *s);

/* A size in bytes, lo..hi: digits and an optional K, M or G (binary). */
int rfs_parse_size(const char *s, __u64 lo, __u64 hi, __u64 *out);

/* A loopback address: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z.  The
 * wildcards 0.0.0.0 and :: are not: they take every address. */
bool rfs_addr_loopback(const struct sockaddr_storage *ss);

/* The number after key at the start of a line of text (len bytes, no NUL
 * needed), past blanks and before a blank or the line's end:
 * "CONFIG_HZ=250", "jiffies: 4295", "MemTotal:   16 kB", or with key ""
 * a file that is one number.  -ENOENT if no line starts with key. */
int rfs_text_u64(const char *text, size_t len, const char *key, __u64 *out);

/* A cpumask file's text ("00000000,00000001\n") names a CPU; anything
 * but '0', ',' and a newline counts as one (never taken for empty). */
bool rfs_mask_text_any(const char *text, size_t len);

/* How the socket-side programs hook the kernel (rfsd --trace-mode). */
enum rfs_trace_mode {
	RFS_TRACE_AUTO,		/* tp_btf, else fexit, else kprobe */
	RFS_TRACE_TP_BTF,
	RFS_TRACE_FEXIT,
	RFS_TRACE_KPROBE,
	RFS_TRACE_NONE,		/* none loaded: reported, never asked for */
};

/* The modes' names, "auto" first as rfsctl's help lists them, NULL
 * ended; a mode's name ("auto" for a value out of range) and back. */
extern const char *const rfs_xdp_mode_names[];
const char *rfs_xdp_mode_name(enum rfs_xdp_mode mode);
int rfs_xdp_mode_parse(const char *s, enum rfs_xdp_mode *mode);
const char *rfs_trace_mode_name(enum rfs_trace_mode mode);
int rfs_trace_mode_parse(const char *s, enum rfs_trace_mode *mode);

/* ---- CPU sets (cpulist.c): bitmaps of RFS_MAX_CPUS bits, "0-3,6" ---- */

struct rfs_cpuset {
	__u64 bits[RFS_CPU_WORDS];
};

/* "0-3,6" -> set, not empty; one '\n' may end it.  A CPU >= RFS_MAX_CPUS
 * is out of range, or (clamp) left out. */
int rfs_cpulist_parse(const char *s, struct rfs_cpuset *set, bool clamp);
/* set -> "0-3,6" (empty string for an empty set). */
void rfs_cpulist_format(const struct rfs_cpuset *set, char *buf, size_t len);

void rfs_cpuset_zero(struct rfs_cpuset *set);
void rfs_cpuset_add(struct rfs_cpuset *set, unsigned int cpu);
bool rfs_cpuset_has(const struct rfs_cpuset *set, unsigned int cpu);
int rfs_cpuset_count(const struct rfs_cpuset *set);
bool rfs_cpuset_equal(const struct rfs_cpuset *a, const struct rfs_cpuset *b);
void rfs_cpuset_and(struct rfs_cpuset *dst, const struct rfs_cpuset *a,
		    const struct rfs_cpuset *b);
/* CPUs online now (/sys/devices/system/cpu/online); 0 or -errno. */
int rfs_cpuset_online(struct rfs_cpuset *set);

#endif /* RFS_PARSE_H */
