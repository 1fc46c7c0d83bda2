// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/parse.c's readers of the kernel's text: rfs_text_u64() (the
 * CONFIG_HZ of the kernel config, jiffies of /proc/timer_list, MemTotal
 * of /proc/meminfo, a sysfs file that is one number) and
 * rfs_mask_text_any() (rps_cpus), each against a reference written with
 * libc's own parsers.  The first byte picks the key, the rest is the text.
 */
#include <errno.h>

#include "fuzz.h"
#include "parse.h"

static const char *const keys[] = { "CONFIG_HZ=", "jiffies:", "MemTotal:", "" };

static int ref_u64(const char *text, size_t len, const char *key,
		   unsigned long long *v)
{
	size_t klen = strlen(key), i, n;

	for (i = 0; i < len; i += n + 1) {
		const char *nl = memchr(text + i, '\n', len - i);
		char *line, *p, *end;
		int e = 0;

		n = nl ? (size_t)(nl - text - i) : len - i;
		if (n < klen || memcmp(text + i, key, klen))
			continue;
		line = rfs_fuzz_str((const uint8_t *)text + i, n);
		p = line + klen;
		p += strspn(p, " \t");
		if (p >= line + n || *p < '0' || *p > '9') {
			e = -EINVAL;
		} else {
			errno = 0;
			*v = strtoull(p, &end, 10);
			if (errno == ERANGE)
				e = -ERANGE;
			else if (end < line + n && *end != ' ' && *end != '\t')
				e = -EINVAL;
		}
		free(line);
		return e;
	}
	return -ENOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *key, *text = (const char *)data + 1;
	unsigned long long want = 0;
	__u64 got = 0;
	bool any = false;
	size_t len, i;
	int r, e;

	if (!size)
		return 0;
	key = keys[data[0] % (sizeof(keys) / sizeof(keys[0]))];
	len = size - 1;
	r = rfs_text_u64(text, len, key, &got);
	e = ref_u64(text, len, key, &want);
	RFS_FUZZ_CHECK(r == e, "key '%s': %d, reference %d", key, r, e);
	RFS_FUZZ_CHECK(r || got == want, "key '%s': %llu, reference %llu",
		       key, (unsigned long long)got, want);
	for (i = 0; i < len; i++)
		any |= !strchr("0,\n", text[i]) || !text[i];
	RFS_FUZZ_CHECK(rfs_mask_text_any(text, len) == any,
		       "mask: %d, reference %d", !any, any);
	return 0;
}
