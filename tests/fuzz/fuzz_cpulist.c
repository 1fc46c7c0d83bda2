// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/cpulist.c: rfs_cpulist_parse() against a reference parser of
 * the grammar (list := item (',' item)* ['\n'], item := N | N '-' N with
 * N <= M, CPUs below RFS_MAX_CPUS, the first error from the left wins),
 * rfs_cpulist_parse(clamp) against the strict one, and
 * rfs_cpulist_format() back through the parser.
 */
#include <errno.h>

#include "parse.h"
#include "fuzz.h"

/* A decimal at *p: its value (saturated), or -EINVAL if none. */
static int ref_num(const char **p, unsigned long *v)
{
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	*v = 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((*v = *v * 10 + (*s - '0')) > 100000)
			*v = 100000;
	*p = s;
	return *v >= RFS_MAX_CPUS ? -ERANGE : 0;
}

static int ref_parse(const char *s, struct rfs_cpuset *set)
{
	unsigned long lo, hi, c;
	int e;

	rfs_cpuset_zero(set);
	for (;;) {
		if ((e = ref_num(&s, &lo)))
			return e;
		hi = lo;
		if (*s == '-') {
			s++;
			if ((e = ref_num(&s, &hi)))
				return e;
			if (hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi; c++)
			rfs_cpuset_add(set, c);
		if (!*s || (*s == '\n' && !s[1]))
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rfs_cpuset got, want, clamped, again;
	char *s = rfs_fuzz_str(data, size), buf[1024];
	int r, e, rc;

	r = rfs_cpulist_parse(s, &got, false);
	e = ref_parse(s, &want);
	RFS_FUZZ_CHECK(r == e, "'%s': %d, reference %d", s, r, e);
	rc = rfs_cpulist_parse(s, &clamped, true);
	if (!r) {
		RFS_FUZZ_CHECK(rfs_cpuset_equal(&got, &want),
			       "'%s': another set than the reference", s);
		RFS_FUZZ_CHECK(rfs_cpuset_count(&got) > 0, "'%s': empty", s);
		RFS_FUZZ_CHECK(!rc && rfs_cpuset_equal(&clamped, &got),
			       "'%s': clamped parse differs (%d)", s, rc);
		rfs_cpulist_format(&got, buf, sizeof(buf));
		RFS_FUZZ_CHECK(!rfs_cpulist_parse(buf, &again, false) &&
			       rfs_cpuset_equal(&again, &got),
			       "'%s': formatted as '%s', which parses otherwise",
			       s, buf);
	} else if (r == -EINVAL) {
		/* a syntax error is one whatever the numbers */
		RFS_FUZZ_CHECK(rc == -EINVAL,
			       "'%s': strict -EINVAL, clamped %d", s, rc);
	}
	free(s);
	return 0;
}
