// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

void rfs_cpuset_zero(struct rfs_cpuset *set)
{
	memset(set, 0, sizeof(*set));
}

void rfs_cpuset_add(struct rfs_cpuset *set, unsigned int cpu)
{
	if (cpu < RFS_MAX_CPUS)
		set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

bool rfs_cpuset_has(const struct rfs_cpuset *set, unsigned int cpu)
{
	return cpu < RFS_MAX_CPUS && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int rfs_cpuset_count(const struct rfs_cpuset *set)
{
	int i, n = 0;

	for (i = 0; i < RFS_CPU_WORDS; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

bool rfs_cpuset_equal(const struct rfs_cpuset *a, const struct rfs_cpuset *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

void rfs_cpuset_and(struct rfs_cpuset *dst, const struct rfs_cpuset *a,
		    const struct rfs_cpuset *b)
{
	int i;

	for (i = 0; i < RFS_CPU_WORDS; i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

static int parse_cpu(const char *s, char **end, unsigned long *cpu, bool clamp)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*cpu = strtoul(s, end, 10);
	if (errno || (*cpu >= RFS_MAX_CPUS && !clamp))
		return -ERANGE;
	if (*cpu > RFS_MAX_CPUS)
		*cpu = RFS_MAX_CPUS;	/* past the set: rfs_cpuset_add ignores */
	return 0;
}

int rfs_cpulist_parse(const char *s, struct rfs_cpuset *set, bool clamp)
{
	unsigned long lo, hi, c;
	char *end;
	int err;

	rfs_cpuset_zero(set);
	if (!*s)
		return -EINVAL;
	for (;;) {
		err = parse_cpu(s, &end, &lo, clamp);
		if (err)
			return err;
		hi = lo;
		if (*end == '-') {
			err = parse_cpu(end + 1, &end, &hi, clamp);
			if (err)
				return err;
			if (hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi; c++)
			rfs_cpuset_add(set, c);
		if (*end == '\0' || (*end == '\n' && !end[1]))
			return 0;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
}

void rfs_cpulist_format(const struct rfs_cpuset *set, char *buf, size_t len)
{
	FILE *f = len ? fmemopen(buf, len, "w") : NULL;
	unsigned int c, hi;

	if (!f)
		return;
	buf[0] = '\0';
	for (c = 0; c < RFS_MAX_CPUS; c = hi + 1) {
		hi = c;
		if (!rfs_cpuset_has(set, c))
			continue;
		while (rfs_cpuset_has(set, hi + 1))
			hi++;
		fprintf(f, ftell(f) ? ",%u" : "%u", c);
		if (hi > c)
			fprintf(f, "-%u", hi);
	}
	fclose(f);
	buf[len - 1] = '\0';	/* fmemopen() leaves a full buffer unended */
}

int rfs_cpuset_online(struct rfs_cpuset *set)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[1024];
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f);
	fclose(f);
	return ok ? rfs_cpulist_parse(buf, set, true) : -EIO;
}
