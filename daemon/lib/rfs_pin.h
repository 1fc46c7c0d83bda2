/* SPDX-License-Identifier: GPL-2.0 */
/* The pin dir: bpffs mount, the versioned layout, the writers' lock. */
#ifndef RFS_PIN_H
#define RFS_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

/* Mount bpffs at /sys/fs/bpf unless pin_dir already lies on a bpffs;
 * under systemd (INVOCATION_ID set) refuse instead (-ENOTSUP). */
int rfs_pin_ensure_bpffs(const char *pin_dir, char *err, size_t len);
/* mkdir -p, mode 0700. */
int rfs_pin_mkdirs(const char *path);
/* flock(LOCK_EX|LOCK_NB) on the dir; returns the fd or -EBUSY. */
int rfs_pin_lock(const char *dir);
/* Remove pin_dir's tree of this layout, then pin_dir if it is empty. */
void rfs_pin_remove_tree(const char *pin_dir);
/* fn(path, ctx) on each pin under dir, never through a symlink; remove:
 * then unlink every entry and dir itself. */
typedef void (*rfs_pin_fn)(const char *path, void *ctx);
void rfs_pin_walk(const char *dir, bool remove, rfs_pin_fn fn, void *ctx);
bool rfs_pin_exists(const char *path);
#define rfs_pin_unlink(path)	((void)unlink(path))	/* missing is fine */
/* snprintf into a PATH_MAX buffer, -ENAMETOOLONG if it does not fit. */
int rfs_path(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* RFS_PIN_H */
