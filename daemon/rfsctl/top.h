/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfsctl top, in four files with one job each:
 *	cmd_top.c	options, the sampling loop, plain text and JSON
 *	top_fetch.c	one snapshot of rfsd's counters over the socket
 *	top_fmt.c	a snapshot's rates as lines of text (both views)
 *	top_view.c	the live terminal view (ncurses); nothing else
 *			includes curses
 * and the arithmetic in top_rates.c.
 */
#ifndef RFS_TOP_H
#define RFS_TOP_H

#include <stdbool.h>
#include <stddef.h>

#include "rfsctl.h"
#include "top_rates.h"

#define RFS_TOP_VERSION_LEN	32
/* how long one reply may take: a sample must not stall the view for
 * rfsctl's usual 10 s when rfsd is busy */
#define RFS_TOP_REPLY_MS	3000

/* What one round of requests gave. */
struct rfs_top_sample {
	struct rfs_top_snap snap;
	char version[RFS_TOP_VERSION_LEN];	/* rfsd's */
	size_t n_cpus, n_ifaces;		/* rows of each kind */
};

/* top_fetch.c: status, stats, and stats IFACE for each interface, on one
 * connection.  0, or -errno with the reason in err. */
int rfs_top_fetch(const struct rfsctl_cfg *g, struct rfs_top_sample *s,
		  char *err, size_t len);
void rfs_top_sample_free(struct rfs_top_sample *s);

/* top_fmt.c */
enum rfs_top_line_kind {
	RFS_TOP_L_TITLE,	/* the first line */
	RFS_TOP_L_HEAD,		/* a table's column titles */
	RFS_TOP_L_ROW,
	RFS_TOP_L_BLANK,
};

#define RFS_TOP_LINE_LEN	128

struct rfs_top_line {
	enum rfs_top_line_kind kind;
	char text[RFS_TOP_LINE_LEN];
};

struct rfs_top_lines {
	size_t n, cap;
	struct rfs_top_line *v;
};

/* The screen for sample s and its rates (NULL: no earlier sample yet),
 * interval seconds apart: title, CPU table, interface table. */
int rfs_top_format(struct rfs_top_lines *out, const struct rfs_top_sample *s,
		   const struct rfs_top_rate *rates, unsigned int interval,
		   const char *clock);
void rfs_top_lines_free(struct rfs_top_lines *l);
/* A rate, a percentage or a gauge as a cell ("-": none). */
void rfs_top_fmt_rate(char *buf, size_t len, const struct rfs_top_rate *r,
		      enum rfs_top_ctr k);
void rfs_top_fmt_pct(char *buf, size_t len, const struct rfs_top_rate *r,
		     double pct);

/* top_view.c: the live view on the terminal until q, Ctrl-C (SIGINT),
 * SIGTERM or SIGHUP.  first: a sample already taken (the caller checked
 * rfsd answers).  The terminal is restored on every way out. */
int rfs_top_view(const struct rfsctl_cfg *g, unsigned int interval,
		 struct rfs_top_sample *first);

/* top_fetch.c: a monotonic clock, seconds (the samples' time) */
double rfs_top_now(void);
/* top_fmt.c: the wall clock as HH:MM:SS (the title's) */
void rfs_top_clock(char *buf, size_t len);

#endif /* RFS_TOP_H */
