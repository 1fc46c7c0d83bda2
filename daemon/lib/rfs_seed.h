/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow hash seed (rfs_globals.hash_seed).  It keys the hash that
 * picks a flow's slot in the flow tables: whoever can guess it can send
 * flows that all land in one slot and push each other's CPUs around.
 * So it comes from the kernel's CSPRNG or rfsd does not start; there is
 * no fallback (a pid times a constant is guessable by anyone who can
 * read /proc).  A leaf, so tests/unit/test_seed.c can make getrandom()
 * fail.
 */
#ifndef RFS_SEED_H
#define RFS_SEED_H

#include <stddef.h>
#include <linux/types.h>

/* 0 with *seed from getrandom(), or -errno with the reason in err. */
int rfs_seed_random(__u32 *seed, char *err, size_t len);

#endif /* RFS_SEED_H */
