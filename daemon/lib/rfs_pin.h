/* SPDX-License-Identifier: GPL-2.0 */
/* The pin dir: bpffs mount, the versioned layout, the writers' lock. */
#ifndef RFS_PIN_H
#define RFS_PIN_H

#include <stdbool.h>
#include <stddef.h>

/* Mount bpffs at /sys/fs/bpf unless pin_dir already lies on a bpffs;
 * under systemd (INVOCATION_ID set) refuse instead (-ENOTSUP). */
int rfs_pin_ensure_bpffs(const char *pin_dir, char *err, size_t len);
/* mkdir -p, mode 0700. */
int rfs_pin_mkdirs(const char *path);
/* flock(LOCK_EX|LOCK_NB) on the dir; returns the fd or -EBUSY. */
int rfs_pin_lock(const char *dir);
/* Remove a pinned object (missing is fine). */
void rfs_pin_unlink(const char *path);
/* Remove pin_dir's v1 tree: every pin and directory in it, then the
 * pin dir itself if it is empty. */
void rfs_pin_remove_tree(const char *pin_dir);
/* Remove one directory of pins, recursively. */
void rfs_pin_remove_tree_dir(const char *dir);
bool rfs_pin_exists(const char *path);
/* snprintf into a PATH_MAX buffer, -ENAMETOOLONG if it does not fit. */
int rfs_path(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* RFS_PIN_H */
