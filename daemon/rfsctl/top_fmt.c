// SPDX-License-Identifier: GPL-2.0
/*
 * rfsctl top's screen as lines of text, the same for the live view and
 * for plain output: a title, a row per CPU and the total, a row per
 * interface.  Every line fits 80 columns.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

/* CPU table: counted where each thing happens -- steered, desired%, held
 * and switches on the CPU that received the frame; deq/s, backlog on the
 * CPU it was steered to; drops on the CPU whose flush found the ring
 * full; local% on the CPU where the application read; kwait of the CPU's
 * cpumap kthread.  80 columns exactly: CPU ids (< 256) and "all" take 3,
 * "100.0%" and kwait's widest 6. */
#define CPU_HEAD "CPU steered/s desired%%   held/s switch/s    deq/s  drops/s backlog local%%  kwait"
#define CPU_ROW  "%-3s %9s %8s %8s %8s %8s %8s %7s %6s %6s"
#define IF_HEAD  "IFACE             seen/s steered/s desired%%   held/s switch/s"
#define IF_ROW   "%-15s %8s %9s %8s %8s %8s"

void rfs_top_clock(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

static struct rfs_top_line *line_add(struct rfs_top_lines *l,
				     enum rfs_top_line_kind kind,
				     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct rfs_top_line *line_add(struct rfs_top_lines *l,
				     enum rfs_top_line_kind kind,
				     const char *fmt, ...)
{
	struct rfs_top_line *v;
	va_list ap;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return NULL;
		l->v = v;
	}
	v = &l->v[l->n++];
	v->kind = kind;
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
	return v;
}

void rfs_top_lines_free(struct rfs_top_lines *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A rate in at most 8 characters: 1234, 123456, 12345.6k, 1234.5M */
static void fmt_num(char *buf, size_t len, double v)
{
	if (v < 999999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 99999.95e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.1fM", v / 1e6);
}

void rfs_top_fmt_rate(char *buf, size_t len, const struct rfs_top_rate *r,
		      enum rfs_top_ctr k)
{
	if (!r || !r->valid)
		snprintf(buf, len, "-");
	else
		fmt_num(buf, len, r->per_s[k]);
}

void rfs_top_fmt_pct(char *buf, size_t len, const struct rfs_top_rate *r,
		     double pct)
{
	if (!r || !r->valid || isnan(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", pct);
}

static void fmt_backlog(char *buf, size_t len, long long b)
{
	if (b < 0)
		snprintf(buf, len, "-");
	else
		fmt_num(buf, len, (double)b);
}

static int cpu_row(struct rfs_top_lines *out, const struct rfs_top_row *row,
		   const struct rfs_top_rate *r)
{
	char c[9][16];

	rfs_top_fmt_rate(c[0], sizeof(c[0]), r, RFS_TOP_STEERED);
	rfs_top_fmt_pct(c[1], sizeof(c[1]), r, r ? r->to_desired_pct : NAN);
	rfs_top_fmt_rate(c[2], sizeof(c[2]), r, RFS_TOP_HELD);
	rfs_top_fmt_rate(c[3], sizeof(c[3]), r, RFS_TOP_SWITCHES);
	rfs_top_fmt_rate(c[4], sizeof(c[4]), r, RFS_TOP_DEQUEUED);
	rfs_top_fmt_rate(c[5], sizeof(c[5]), r, RFS_TOP_DROPS);
	fmt_backlog(c[6], sizeof(c[6]), row->backlog);
	rfs_top_fmt_pct(c[7], sizeof(c[7]), r, r ? r->locality_pct : NAN);
	rfs_top_kwait_text(c[8], sizeof(c[8]), r ? r->kwait_us : NAN);
	return line_add(out, RFS_TOP_L_ROW, CPU_ROW, row->name, c[0], c[1],
			c[2], c[3], c[4], c[5], c[6], c[7], c[8]) ? 0 : -1;
}

static int if_row(struct rfs_top_lines *out, const struct rfs_top_row *row,
		  const struct rfs_top_rate *r)
{
	char c[5][16];

	rfs_top_fmt_rate(c[0], sizeof(c[0]), r, RFS_TOP_SEEN);
	rfs_top_fmt_rate(c[1], sizeof(c[1]), r, RFS_TOP_STEERED);
	rfs_top_fmt_pct(c[2], sizeof(c[2]), r, r ? r->to_desired_pct : NAN);
	rfs_top_fmt_rate(c[3], sizeof(c[3]), r, RFS_TOP_HELD);
	rfs_top_fmt_rate(c[4], sizeof(c[4]), r, RFS_TOP_SWITCHES);
	return line_add(out, RFS_TOP_L_ROW, IF_ROW, row->name, c[0], c[1],
			c[2], c[3], c[4]) ? 0 : -1;
}

int rfs_top_format(struct rfs_top_lines *out, const struct rfs_top_sample *s,
		   const struct rfs_top_rate *rates, unsigned int interval,
		   const char *clock)
{
	const struct rfs_top_snap *snap = &s->snap;
	const struct rfs_top_rate *r;
	bool reset = false;
	size_t i;
	int err = 0;

	for (i = 0; rates && i < snap->n; i++)
		reset |= rates[i].reset;
	out->n = 0;
	if (!line_add(out, RFS_TOP_L_TITLE,
		      "rfsd %s  %zu CPUs  %zu interface%s  every %us  %s%s",
		      s->version[0] ? s->version : "?", s->n_cpus,
		      s->n_ifaces, s->n_ifaces == 1 ? "" : "s", interval,
		      clock, reset ? "  (counters reset)" : ""))
		return -1;
	if (!line_add(out, RFS_TOP_L_HEAD, CPU_HEAD))
		return -1;
	/* the CPUs in rfsd's order, then the total */
	for (i = 0; !err && i < snap->n; i++) {
		r = rates ? &rates[i] : NULL;
		if (snap->rows[i].kind == RFS_TOP_CPU)
			err = cpu_row(out, &snap->rows[i], r);
	}
	for (i = 0; !err && i < snap->n; i++) {
		r = rates ? &rates[i] : NULL;
		if (snap->rows[i].kind == RFS_TOP_TOTAL)
			err = cpu_row(out, &snap->rows[i], r);
	}
	if (err || !line_add(out, RFS_TOP_L_BLANK, "%s", ""))
		return -1;
	if (!s->n_ifaces)
		return line_add(out, RFS_TOP_L_ROW, "no interface attached") ?
		       0 : -1;
	if (!line_add(out, RFS_TOP_L_HEAD, IF_HEAD))
		return -1;
	for (i = 0; !err && i < snap->n; i++) {
		r = rates ? &rates[i] : NULL;
		if (snap->rows[i].kind == RFS_TOP_IFACE)
			err = if_row(out, &snap->rows[i], r);
	}
	return err;
}
