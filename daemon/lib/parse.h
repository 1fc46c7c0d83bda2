/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words of rfsd.conf and of rfsctl's command line that are not CPU
 * lists (cpulist.h): numbers and interface names.  One parser each, so a
 * malformed value gets the same answer everywhere: "12abc" is not a
 * number, whatever the number was for.  No I/O, no allocation: the fuzz
 * target tests/fuzz/fuzz_words.c runs them on anything.
 */
#ifndef RFS_PARSE_H
#define RFS_PARSE_H

#include <stdbool.h>
#include <sys/socket.h>
#include <linux/types.h>

/* Decimal digits only, at least one ("007" is 7): no sign, no blanks, no
 * hex, no suffix.  0; -EINVAL if s is not such a number; -ERANGE if it is
 * one above UINT32_MAX. */
int rfs_parse_u32(const char *s, __u32 *out);

/* A table size: 0 if n is a power of two in lo..hi; -EDOM if it is no
 * power of two, -ERANGE if it is one outside lo..hi. */
int rfs_check_pow2(__u32 n, __u32 lo, __u32 hi);

/* The kernel's dev_valid_name(): 1..IFNAMSIZ-1 bytes, not "." or "..",
 * no '/', ':' or white space. */
bool rfs_ifname_valid(const char *s);

/* A listening address, numeric only (no name lookup in a daemon's config):
 * "IPv4:PORT" or "[IPv6]:PORT", PORT 1..65535.  0 with the address in
 * *ss (*len its size); -EINVAL if s is not of that form. */
int rfs_parse_hostport(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len);
/* A group name as useradd(8) takes them: [a-z_][a-z0-9_-]*, a '$' at
 * the end allowed, at most 32 characters. */
bool rfs_group_name_valid(const char *s);

/* A size in bytes: digits and an optional K, M or G (binary).  0 with it
 * in *out; -EINVAL if s is not of that form; -ERANGE if it is outside
 * lo..hi. */
int rfs_parse_size(const char *s, __u64 lo, __u64 hi, __u64 *out);

/* A loopback address: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z.  The
 * wildcards 0.0.0.0 and :: are not: they take every address. */
bool rfs_addr_loopback(const struct sockaddr_storage *ss);

#endif /* RFS_PARSE_H */
