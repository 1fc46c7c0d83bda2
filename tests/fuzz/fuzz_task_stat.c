// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/rfs_dp.h: rfs_parse_task_stat(), the /proc/PID/stat
 * reader that tells a kthread (PF_KTHREAD) from a task named like one,
 * against a reference written the slow, obvious way.
 */
#include <errno.h>

#include "fuzz.h"
#include "rfs_dp.h"

/* The comm is what lies between the first '(' and the last ')'; then a
 * blank-separated state and five integers, then the flags. */
static int ref_parse(const char *s, char *comm, size_t len, char *state,
		     unsigned int *flags)
{
	const char *open = NULL, *close = NULL, *p;
	size_t n;

	for (p = s; *p; p++) {
		if (*p == '(' && !open)
			open = p;
		if (*p == ')')
			close = p;
	}
	if (!open || !close || close < open)
		return -EINVAL;
	if (sscanf(close + 1, " %c %*d %*d %*d %*d %*d %u", state, flags) != 2)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n > len - 1)
		n = len - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = rfs_fuzz_str(data, size);
	char comm[16], rcomm[16], state = 0, rstate = 0;
	unsigned int flags = 0, rflags = 0;
	int e = rfs_parse_task_stat(s, comm, sizeof(comm), &state, &flags);
	int r = ref_parse(s, rcomm, sizeof(rcomm), &rstate, &rflags);

	RFS_FUZZ_CHECK(e == r, "parse %d, reference %d on '%s'", e, r, s);
	if (!e) {
		RFS_FUZZ_CHECK(strlen(comm) < sizeof(comm), "comm overran");
		RFS_FUZZ_CHECK(!strcmp(comm, rcomm) && state == rstate &&
			       flags == rflags,
			       "'%s' %c %u, reference '%s' %c %u", comm, state,
			       flags, rcomm, rstate, rflags);
	}
	free(s);
	return 0;
}
