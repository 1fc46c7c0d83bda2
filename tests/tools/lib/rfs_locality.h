/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive locality as the application sees it, the same in every steering
 * mode: after a recv() that returned data, is the reading thread on the
 * CPU that processed the socket's last incoming frame (SO_INCOMING_CPU,
 * socket(7), against sched_getcpu())?  The servers of rfs_rr and rfs_rpc
 * count it into a file given with --stats FILE; rfs_rr's client, given
 * the same file, reads it at the start and the end of its measured window
 * and reports the difference, so the figure covers exactly the window its
 * transactions/s do, while the server stays up across runs
 * (bench/README.md, "Locality at the socket").
 *
 * The file: one page, shared (mmap MAP_SHARED), emptied when the server
 * starts; native-endian 64-bit words, each only ever growing:
 *   [0] recv_local    samples on the CPU of the last incoming frame
 *   [1] recv_remote   samples elsewhere
 *   [2] recv_unknown  samples where getsockopt failed or no frame had
 *                     set the CPU yet (-1)
 * Writers add with relaxed atomics and the client loads each word with
 * an atomic load of its own mapping: no lock, and no value is ever seen
 * half-written.  (`od -An -t u8 -w24 -N 24 FILE` shows them to a human.)
 *
 * Sampled: every RFS_LOC_EVERY-th recv() with data of a connection, its
 * first included, so the extra syscall costs the same small share of
 * receives in every mode.
 */
#ifndef RFS_LOCALITY_H
#define RFS_LOCALITY_H

#include <stdint.h>
#include <stdio.h>

#define RFS_LOC_EVERY	8

struct rfs_loc;

struct rfs_loc_snap {
	uint64_t local, remote, unknown;
};

/* The server's side: create (or empty) path, one shared page.  The
 * client's side (create 0): map the server's existing file read-only.
 * NULL path: NULL, nothing counted.  Dies on error. */
struct rfs_loc *rfs_loc_open(const char *path, int create);
/* After a recv() on fd that returned data; *nrecv is the connection's
 * own count of such receives (starts at 0).  No-op when l is NULL. */
void rfs_loc_sample(struct rfs_loc *l, int fd, uint32_t *nrecv);
/* The counters now (zeros when l is NULL). */
void rfs_loc_read(const struct rfs_loc *l, struct rfs_loc_snap *s);
/* " recv_local=N recv_remote=N recv_unknown=N locality_pct=P" of b - a
 * (locality_pct: local / (local + remote) x 100, "-" with no sample). */
void rfs_loc_print(const struct rfs_loc_snap *a, const struct rfs_loc_snap *b,
		   FILE *f);
/* The same for everything counted since the server started (a server's
 * exit line); nothing when l is NULL. */
void rfs_loc_print_totals(const struct rfs_loc *l, FILE *f);

#endif /* RFS_LOCALITY_H */
