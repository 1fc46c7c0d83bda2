/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets in tests/fuzz (tests/fuzz/README.md):
 * the input as a C string, and a check that fails loudly.
 */
#ifndef RFS_FUZZ_H
#define RFS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A broken invariant is a crash: libFuzzer keeps the input. */
#define RFS_FUZZ_CHECK(cond, ...)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz check failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/* data as a NUL-terminated copy (the caller frees it); NULs inside stay,
 * so a C-string parser sees the input up to the first one. */
static inline char *rfs_fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif /* RFS_FUZZ_H */
