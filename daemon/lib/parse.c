// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "parse.h"

int rfs_parse_u32(const char *s, __u32 *out)
{
	unsigned long long v = 0;
	const char *p;

	/* by hand: strtoul takes " 5", "+5", "-5" (as 2^64-5) and "5x" */
	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	for (p = s; *p; p++) {
		v = v * 10 + (*p - '0');
		if (v > 0xffffffffULL)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

int rfs_check_pow2(__u32 n, __u32 lo, __u32 hi)
{
	if (!n || (n & (n - 1)))
		return -EDOM;
	return n < lo || n > hi ? -ERANGE : 0;
}

bool rfs_ifname_valid(const char *s)
{
	size_t n = strnlen(s, IF_NAMESIZE);

	if (!n || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	/* the kernel's isspace(): also \v and \f */
	return !strpbrk(s, "/: \t\n\v\f\r");
}
