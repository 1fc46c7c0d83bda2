// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/parse.c: rfs_parse_u32(), rfs_check_pow2() and
 * rfs_ifname_valid() on the same string, each against a reference written
 * the slow, obvious way.
 */
#include <errno.h>
#include <net/if.h>

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
	free(s);
	return 0;
}
