// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
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

int rfs_parse_hostport(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *port;
	bool v6 = *s == '[';
	size_t n;
	__u32 p;

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		colon = strchr(s, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		n = colon - s - 1;
		s++;
		port = colon + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		n = colon - s;
		port = colon + 1;
	}
	if (!n || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	if (rfs_parse_u32(port, &p) || !p || p > 65535)
		return -EINVAL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host,
		      v6 ? (void *)&a6->sin6_addr : (void *)&a4->sin_addr) != 1)
		return -EINVAL;
	/* sin_family and sin_port are where sin6_family and sin6_port are */
	a4->sin_family = v6 ? AF_INET6 : AF_INET;
	a4->sin_port = htons(p);
	*len = v6 ? sizeof(*a6) : sizeof(*a4);
	return 0;
}

bool rfs_addr_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr) &&
	       a6->sin6_addr.s6_addr[12] == 127;
}

bool rfs_group_name_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > 32)
		return false;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if ((ch >= 'a' && ch <= 'z') || ch == '_' ||
		    (i && ((ch >= '0' && ch <= '9') || ch == '-')) ||
		    (i && i == n - 1 && ch == '$'))
			continue;
		return false;
	}
	return true;
}

int rfs_parse_size(const char *s, __u64 lo, __u64 hi, __u64 *out)
{
	size_t n = strlen(s);
	unsigned int shift = 0;
	char num[16];
	__u64 bytes;
	__u32 x;
	int e;

	if (n && strchr("KMG", s[n - 1])) {
		shift = s[n - 1] == 'K' ? 10 : s[n - 1] == 'M' ? 20 : 30;
		n--;
	}
	if (n >= sizeof(num))	/* digits or not: say which */
		return strspn(s, "0123456789") == n ? -ERANGE : -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	e = rfs_parse_u32(num, &x);
	if (e)
		return e;
	bytes = (__u64)x << shift;
	if (bytes < lo || bytes > hi)
		return -ERANGE;
	*out = bytes;
	return 0;
}

int rfs_text_u64(const char *text, size_t len, const char *key, __u64 *out)
{
	size_t klen = strlen(key), i = 0, j, n;
	const char *line, *nl;
	__u64 v = 0;

	for (; i < len; i += n + 1) {
		line = text + i;
		nl = memchr(line, '\n', len - i);
		n = nl ? (size_t)(nl - line) : len - i;
		if (n < klen || memcmp(line, key, klen))
			continue;
		for (j = klen; j < n && (line[j] == ' ' || line[j] == '\t'); j++)
			;
		if (j == n || line[j] < '0' || line[j] > '9')
			return -EINVAL;
		for (; j < n && line[j] >= '0' && line[j] <= '9'; j++) {
			if (v > (UINT64_MAX - (line[j] - '0')) / 10)
				return -ERANGE;
			v = v * 10 + (line[j] - '0');
		}
		if (j < n && line[j] != ' ' && line[j] != '\t')
			return -EINVAL;
		*out = v;
		return 0;
	}
	return -ENOENT;
}

bool rfs_mask_text_any(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (text[i] != '0' && text[i] != ',' && text[i] != '\n')
			return true;
	return false;
}

const char *const rfs_xdp_mode_names[] = {
	[RFS_XDP_AUTO] = "auto",
	[RFS_XDP_NATIVE] = "native",
	[RFS_XDP_GENERIC] = "generic",
	NULL,
};

static const char *const trace_mode_names[] = {
	[RFS_TRACE_AUTO] = "auto",
	[RFS_TRACE_TP_BTF] = "tp_btf",
	[RFS_TRACE_FEXIT] = "fexit",
	[RFS_TRACE_KPROBE] = "kprobe",
	[RFS_TRACE_NONE] = "none",
	NULL,
};

static int name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -EINVAL;
}

const char *rfs_xdp_mode_name(enum rfs_xdp_mode mode)
{
	return rfs_xdp_mode_names[(unsigned int)mode <= RFS_XDP_GENERIC ? mode : 0];
}

int rfs_xdp_mode_parse(const char *s, enum rfs_xdp_mode *mode)
{
	int i = name_index(rfs_xdp_mode_names, s);

	if (i < 0)
		return i;
	*mode = i;
	return 0;
}

const char *rfs_trace_mode_name(enum rfs_trace_mode mode)
{
	return trace_mode_names[(unsigned int)mode <= RFS_TRACE_NONE ? mode : 0];
}

int rfs_trace_mode_parse(const char *s, enum rfs_trace_mode *mode)
{
	int i = name_index(trace_mode_names, s);

	if (i < 0 || i == RFS_TRACE_NONE)
		return -EINVAL;
	*mode = i;
	return 0;
}
