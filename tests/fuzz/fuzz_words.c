// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/parse.c: rfs_parse_u32(), rfs_check_pow2() and
 * rfs_ifname_valid() on the same string, each against a reference written
 * the slow, obvious way; rfs_parse_hostport() (metrics_listen) against
 * getaddrinfo() with numeric host and service.
 */
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>

#include "fuzz.h"
#include "parse.h"

/* Decimal digits only; compare by value as a string of digits. */
static int ref_u32(const char *s, unsigned long long *v)
{
	size_t n = strlen(s), i, lead = 0;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	while (lead + 1 < n && s[lead] == '0')
		lead++;
	/* "4294967295" has 10 digits: longer, or equal and greater, is out */
	if (n - lead > 10 || (n - lead == 10 && strcmp(s + lead, "4294967295") > 0))
		return -ERANGE;
	*v = strtoull(s, NULL, 10);
	return 0;
}

static int ref_pow2(unsigned long long n, unsigned long long lo,
		    unsigned long long hi)
{
	unsigned long long p;

	for (p = 1; p && p <= 0xffffffffULL; p <<= 1)
		if (p == n)
			return n < lo || n > hi ? -ERANGE : 0;
	return -EDOM;
}

/* "HOST:PORT" or "[HOST6]:PORT" split the obvious way, then getaddrinfo()
 * with AI_NUMERICHOST | AI_NUMERICSERV; the port must be all digits
 * (getaddrinfo takes " 80" and "+80") and 1..65535. */
static int ref_hostport(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *ai;
	char host[128], portbuf[8];
	const char *port, *end;
	unsigned long v;
	size_t i, n;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return -EINVAL;
		n = end - s - 1;
		port = end + 2;
		hints.ai_family = AF_INET6;
		s++;
	} else {
		end = strrchr(s, ':');
		if (!end)
			return -EINVAL;
		n = end - s;
		port = end + 1;
		hints.ai_family = AF_INET;
	}
	if (!n || n >= sizeof(host) || !*port)
		return -EINVAL;
	/* leading zeros are fine ("007" is 7, as everywhere in the config) */
	for (i = 0, v = 0; port[i]; i++) {
		if (port[i] < '0' || port[i] > '9')
			return -EINVAL;
		if (v <= 65535)
			v = v * 10 + (port[i] - '0');
	}
	if (!v || v > 65535)
		return -EINVAL;
	snprintf(portbuf, sizeof(portbuf), "%lu", v);
	port = portbuf;
	memcpy(host, s, n);
	host[n] = '\0';
	/* inet_pton's syntax, narrower than getaddrinfo's: no scope ids;
	 * IPv4 as four decimal parts 0..255 without leading zeros */
	if (strchr(host, '%') ||
	    host[strspn(host, "0123456789abcdefABCDEF:.")])	/* glibc takes "*" */
		return -EINVAL;
	if (hints.ai_family == AF_INET) {
		const char *q = host;
		int parts;

		for (parts = 0; parts < 4; parts++) {
			size_t d = strspn(q, "0123456789");

			if (!d || d > 3 || (d > 1 && q[0] == '0') || atoi(q) > 255)
				return -EINVAL;
			q += d;
			if (parts < 3 && *q++ != '.')
				return -EINVAL;
		}
		if (*q)
			return -EINVAL;
	}
	if (getaddrinfo(host, port, &hints, &ai))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static int ref_ifname(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > IF_NAMESIZE - 1)
		return 0;
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] == ' ' || s[i] == '\t' ||
		    s[i] == '\n' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r')
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = rfs_fuzz_str(data, size);
	unsigned long long want = 0;
	__u32 got = 0xdeadbeef;
	int r, e;

	r = rfs_parse_u32(s, &got);
	e = ref_u32(s, &want);
	RFS_FUZZ_CHECK(r == e, "'%s': %d, reference %d", s, r, e);
	if (!r) {
		RFS_FUZZ_CHECK(got == want, "'%s': %u, reference %llu", s, got,
			       want);
		r = rfs_check_pow2(got, 64, 1u << 20);
		e = ref_pow2(got, 64, 1u << 20);
		RFS_FUZZ_CHECK(r == e, "pow2 %u: %d, reference %d", got, r, e);
	} else {
		RFS_FUZZ_CHECK(got == 0xdeadbeef, "'%s': failed but wrote %u",
			       s, got);
	}
	r = rfs_ifname_valid(s);
	e = ref_ifname(s);
	RFS_FUZZ_CHECK(r == e, "ifname '%s': %d, reference %d", s, r, e);
	{
		struct sockaddr_storage a, b;
		socklen_t len;

		r = rfs_parse_hostport(s, &a, &len);
		e = ref_hostport(s, &b);
		RFS_FUZZ_CHECK(r == e, "hostport '%s': %d, reference %d", s, r,
			       e);
		RFS_FUZZ_CHECK(r || !memcmp(&a, &b, len),
			       "hostport '%s': not the reference's address", s);
	}
	free(s);
	return 0;
}
