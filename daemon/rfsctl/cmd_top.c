// SPDX-License-Identifier: GPL-2.0
/*
 * top: rfsd's counters as rates (top_rates.c), refreshed every interval:
 * on a terminal the live view (ncurses, in this file only), else plain
 * text or JSON.  The busiest flows are not shown: rfsd's flows sampler
 * counts per flow for a window of its own, too dear to run every second.
 */
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_client.h"
#include "log.h"
#include "rfs_prom.h"
#include "rfsctl.h"

static const struct top_cfg {
	unsigned int interval;
	bool once;
} top_defaults = { .interval = 1 };

static const struct rfs_opt top_opts[] = {
	DEFINE_OPTION("interval", OPT_UINT, struct top_cfg, interval,
		      .metavar = "SECONDS",
		      .help = "refresh every SECONDS (default: 1)"),
	DEFINE_OPTION("once", OPT_BOOL, struct top_cfg, once,
		      .help = "one sample after one interval, as plain text"),
	END_OPTIONS
};

/* a busy rfsd must not stall the view for rfsctl's usual 10 s */
#define TOP_REPLY_MS	3000
#define TICK_MS		200

/* SIGINT, SIGTERM, SIGHUP: the loop ends at its next turn. */
static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	top_stop = 1;
}

#define now()	(rfs_mono_ns() / 1e9)

static void wall_clock(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

/* ---- one sample ---- */

/* The requests of /metrics (rfs_prom_collect()), on one connection, as
 * rows: a CPU's, the total, then an interface's.  An interface detached
 * between status and its stats is left out. */
static int fetch(const struct rfsctl_cfg *g, struct rfs_top_snap *s,
		 char *err, size_t len)
{
	struct json_object *snap = NULL, *sta, *total, *per, *ifs, *o, *one;
	long long sum = RFS_TOP_NO_BACKLOG;
	size_t i, ncpu, nif;
	struct rfs_top_row *r;
	struct rfs_ctl *ctl;
	int ret, k;

	memset(s, 0, sizeof(*s));
	ret = rfs_ctl_connect(&ctl, g->socket, TOP_REPLY_MS, err, len);
	if (!ret)
		ret = rfs_prom_collect(rfs_ctl_ask, ctl, &snap, err, len);
	rfs_ctl_close(ctl);
	/* the time of the counters: taken as soon as they are read */
	s->t = now();
	sta = rfs_get(snap, "stats");
	per = rfs_get(sta, "per_cpu");
	ifs = rfs_get(snap, "interfaces");
	ncpu = rfs_len(per);
	nif = rfs_len(ifs);
	if (!ret && (!json_object_object_get_ex(sta, "total", &total) ||
		     !json_object_is_type(per, json_type_array))) {
		snprintf(err, len, "unexpected reply from rfsd: stats has no \"total\" or \"per_cpu\"");
		ret = -EPROTO;
	}
	s->rows = ret ? NULL : calloc(ncpu + 1 + nif, sizeof(*s->rows));
	if (!ret && !s->rows) {
		snprintf(err, len, "can't sample rfsd: out of memory");
		ret = -ENOMEM;
	}
	for (i = 0; !ret && i < ncpu + 1 + nif; i++) {
		r = &s->rows[s->n++];
		one = i > ncpu ? json_object_array_get_idx(ifs, i - ncpu - 1) :
			  NULL;
		r->kind = i < ncpu ? RFS_TOP_CPU : i == ncpu ? RFS_TOP_TOTAL :
			  RFS_TOP_IFACE;
		o = i < ncpu ? json_object_array_get_idx(per, i) : total;
		snprintf(r->name, sizeof(r->name), "%s", i > ncpu ?
			 rfs_str(one, "interface", "?") : "all");
		if (i < ncpu)
			snprintf(r->name, sizeof(r->name), "%lld",
				 rfs_num(o, "cpu", i));
		if (i > ncpu && !json_object_object_get_ex(one, "total", &o)) {
			snprintf(err, len, "unexpected reply from rfsd: stats %s has no \"total\"",
				 r->name);
			ret = -EPROTO;
		}
		for (k = 0; k < RFS_TOP_NR_CTRS; k++)
			r->ctr[k] = rfs_u64(o, rfs_top_ctr_keys[k]);
		r->backlog = rfs_num(o, "backlog", RFS_TOP_NO_BACKLOG);
		/* absent when rfsd could not read them, and then not 0 */
		r->has_kthread = json_object_object_get_ex(o, "kthread_wait_ns",
							   NULL) &&
				 json_object_object_get_ex(o, "kthread_runs",
							   NULL);
		/* the total backlog is the sum of the CPUs' */
		if (i < ncpu && r->backlog != RFS_TOP_NO_BACKLOG)
			sum = (sum < 0 ? 0 : sum) + r->backlog;
		else if (i == ncpu)
			r->backlog = sum;
	}
	s->n_cpus = ncpu;
	s->n_ifaces = nif;
	snprintf(s->version, sizeof(s->version), "%s",
		 rfs_str(rfs_get(snap, "status"), "version", ""));
	json_object_put(snap);
	if (ret)
		free(s->rows);
	return ret;
}

/* ---- the screen as lines of text, the same for the live view and for
 * plain output: a title, a row per CPU and the total, a row per
 * interface, each fitting 80 columns ---- */

enum { COL_DESIRED = RFS_TOP_NR_CTRS, COL_LOCAL, COL_BACKLOG, COL_KWAIT };

/* A column: its head, width and what it shows (a counter's rate or a
 * COL_).  Each is counted where it happens: steered, desired%, held and
 * switches on the CPU that received the frame; deq/s, backlog on the CPU
 * it was steered to; drops on the CPU whose flush found the ring full;
 * local% on the CPU where the application read; kwait of the CPU's
 * cpumap kthread.  CPU ids (< 256) and "all" take 3 columns. */
struct col {
	const char *head;
	int w, what;
};

static const struct col cpu_cols[] = {
	{ "CPU", -3, -1 }, { "steered/s", 9, RFS_TOP_STEERED },
	{ "desired%", 8, COL_DESIRED }, { "held/s", 8, RFS_TOP_HELD },
	{ "switch/s", 8, RFS_TOP_SWITCHES }, { "deq/s", 8, RFS_TOP_DEQUEUED },
	{ "drops/s", 8, RFS_TOP_DROPS }, { "backlog", 7, COL_BACKLOG },
	{ "local%", 6, COL_LOCAL }, { "kwait", 6, COL_KWAIT }, { NULL }
};

static const struct col if_cols[] = {
	{ "IFACE", -15, -1 }, { "seen/s", 8, RFS_TOP_SEEN },
	{ "steered/s", 9, RFS_TOP_STEERED }, { "desired%", 8, COL_DESIRED },
	{ "held/s", 8, RFS_TOP_HELD }, { "switch/s", 8, RFS_TOP_SWITCHES },
	{ NULL }
};

enum line_kind { L_TITLE, L_HEAD, L_ROW, L_BLANK };

struct line {
	enum line_kind kind;
	char text[128];
};

struct lines {
	size_t n;
	struct line *v;		/* room for a title, 4 more, each row */
};

static struct line *line_new(struct lines *l, enum line_kind kind)
{
	struct line *v = &l->v[l->n++];

	v->kind = kind;
	v->text[0] = '\0';
	return v;
}

/* A rate in at most 8 characters (1234, 123456, 12345.6k, 1234.5M), a
 * percentage, or "-" for none (NaN). */
static void fmt_cell(char *buf, size_t len, double v, bool pct)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (pct)
		snprintf(buf, len, "%.1f%%", v);
	else if (v < 999999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 99999.95e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.1fM", v / 1e6);
}

/* A row's line, or (row NULL) the head's. */
static void row_line(struct lines *out, const struct col *cols,
		     const struct rfs_top_row *row,
		     const struct rfs_top_rate *r)
{
	struct line *l = line_new(out, row ? L_ROW : L_HEAD);
	bool ok = r && r->valid;
	const struct col *c;
	size_t off = 0;
	char v[16];

	for (c = cols; c->head; c++) {
		if (!row || c == cols)
			snprintf(v, sizeof(v), "%s", !row ? c->head : row->name);
		else if (c->what == COL_KWAIT)
			rfs_top_kwait_text(v, sizeof(v), r ? r->kwait_us : NAN);
		else if (c->what == COL_BACKLOG)
			fmt_cell(v, sizeof(v), row->backlog < 0 ? NAN :
				 row->backlog, false);
		else if (c->what == COL_DESIRED || c->what == COL_LOCAL)
			fmt_cell(v, sizeof(v), !ok ? NAN :
				 c->what == COL_LOCAL ? r->locality_pct :
				 r->to_desired_pct, true);
		else
			fmt_cell(v, sizeof(v), ok ? r->per_s[c->what] : NAN,
				 false);
		off += snprintf(l->text + off, sizeof(l->text) - off, "%s%*s",
				c == cols ? "" : " ", c->w, v);
	}
}

static void rows_of(struct lines *out, const struct rfs_top_snap *s,
		    const struct rfs_top_rate *rates, enum rfs_top_kind kind)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->rows[i].kind == kind)
			row_line(out, kind == RFS_TOP_IFACE ? if_cols : cpu_cols,
				 &s->rows[i], rates ? &rates[i] : NULL);
}

/* The screen for sample s and its rates (NULL: no earlier sample yet). */
static int format(struct lines *out, const struct rfs_top_snap *s,
		  const struct rfs_top_rate *rates, unsigned int interval,
		  const char *clock, bool reset)
{
	struct line *v = realloc(out->v, (s->n + 5) * sizeof(*v));

	if (!v)
		return -1;
	out->v = v;
	out->n = 0;
	snprintf(line_new(out, L_TITLE)->text, sizeof(v->text),
		 "rfsd %s  %zu CPUs  %zu interface%s  every %us  %s%s",
		 s->version[0] ? s->version : "?", s->n_cpus, s->n_ifaces,
		 s->n_ifaces == 1 ? "" : "s", interval, clock,
		 reset ? "  (counters reset)" : "");
	row_line(out, cpu_cols, NULL, NULL);
	rows_of(out, s, rates, RFS_TOP_CPU);
	rows_of(out, s, rates, RFS_TOP_TOTAL);
	line_new(out, L_BLANK);
	if (!s->n_ifaces)
		snprintf(line_new(out, L_ROW)->text, sizeof(v->text),
			 "no interface attached");
	else
		row_line(out, if_cols, NULL, NULL);
	rows_of(out, s, rates, RFS_TOP_IFACE);
	return 0;
}

/* v with one decimal, as printed (json-c keeps the text it is given);
 * NaN, no JSON number, as null */
static struct json_object *json_num(double v)
{
	char buf[64];

	if (isnan(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.1f", v);
	return json_object_new_double_s(v, buf);
}

static struct json_object *rate_json(const struct rfs_top_row *row,
				     const struct rfs_top_rate *r)
{
	struct json_object *o = json_object_new_object();
	char key[64];
	int k;

	if (row->kind == RFS_TOP_CPU)
		json_object_object_add(o, "cpu",
				       json_object_new_int(atoi(row->name)));
	else if (row->kind == RFS_TOP_IFACE)
		json_object_object_add(o, "name",
				       json_object_new_string(row->name));
	for (k = 0; k < RFS_TOP_NR_CTRS; k++) {
		/* the kthreads are the datapath's, not an interface's */
		if (rfs_top_ctr_is_kthread(k) && row->kind == RFS_TOP_IFACE)
			continue;
		snprintf(key, sizeof(key), "%s_per_s", rfs_top_ctr_keys[k]);
		json_object_object_add(o, key, (rfs_top_ctr_is_kthread(k) ?
					r->kthread_valid : r->valid) ?
				       json_num(r->per_s[k]) : NULL);
	}
	json_object_object_add(o, "to_desired_pct", json_num(r->to_desired_pct));
	json_object_object_add(o, "locality_pct", json_num(r->locality_pct));
	if (row->kind != RFS_TOP_IFACE) {
		json_object_object_add(o, "backlog", row->backlog < 0 ? NULL :
				       json_object_new_int64(row->backlog));
		json_object_object_add(o, "kthread_wait_us_per_run",
				       json_num(r->kwait_us));
	}
	json_object_object_add(o, "reset", json_object_new_boolean(r->reset));
	return o;
}

static void print_json(const struct rfs_top_snap *s,
		       const struct rfs_top_rate *rates, double secs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cpus = json_object_new_array();
	struct json_object *ifs = json_object_new_array();
	struct json_object *j;
	size_t i;

	json_object_object_add(o, "seconds", json_num(secs));
	for (i = 0; i < s->n; i++) {
		j = rate_json(&s->rows[i], &rates[i]);
		if (s->rows[i].kind == RFS_TOP_TOTAL)
			json_object_object_add(o, "total", j);
		else
			json_object_array_add(s->rows[i].kind == RFS_TOP_CPU ?
					      cpus : ifs, j);
	}
	json_object_object_add(o, "per_cpu", cpus);
	json_object_object_add(o, "interfaces", ifs);
	p_json(o);
	json_object_put(o);
}

/* A new sample against *prev, which becomes it: its screen in l, or
 * under -j printed; clock: its time; *reset: a counter went back.  On
 * failure (-1, why in err) prev is kept: the next rates span the gap. */
static int step(const struct rfsctl_cfg *g, unsigned int interval,
		struct rfs_top_snap *prev, struct lines *l, char *clock,
		bool *reset, char *err, size_t len)
{
	struct rfs_top_rate *rates;
	struct rfs_top_snap cur;
	int ret = 0;
	size_t i;

	if (fetch(g, &cur, err, len))
		return -1;
	rates = calloc(cur.n + 1, sizeof(*rates));
	if (rates)
		rfs_top_rates(prev, &cur, rates);
	wall_clock(clock, 16);
	for (*reset = false, i = 0; rates && i < cur.n; i++)
		*reset |= rates[i].reset;
	if (rates && g->json)
		print_json(&cur, rates, cur.t - prev->t);
	else if (!rates || format(l, &cur, rates, interval, clock, *reset))
		ret = -1;
	if (ret)
		snprintf(err, len, "can't show the sample: out of memory");
	free(rates);
	free(prev->rows);
	*prev = cur;
	return ret;
}

/* ---- the live view ----
 * The terminal is given back on every way out: endwin() on the normal
 * paths, and from an atexit handler for any exit() in between. */

static SCREEN *view_screen;	/* between newterm() and endwin() */

static void view_end(void)
{
	if (!view_screen)
		return;
	endwin();
	delscreen(view_screen);
	view_screen = NULL;
}

/* What the view shows: the latest lines, and a message for the last
 * line (an error, or that rates come after one interval). */
struct view {
	struct lines lines;
	char status[RFS_CTL_ERR_LEN];
	/* when counters last went back: the title says so for one sample,
	 * the status line until the end, so a glance later still sees it */
	char reset_at[16];
};

static void draw(const struct view *v)
{
	int y, last = LINES - 1;	/* the status line */
	const struct line *l;
	size_t i;

	erase();
	for (i = 0, y = 0; i < v->lines.n && y < last; i++, y++) {
		l = &v->lines.v[i];
		/* more to show than fits: say so on the last free line */
		if (y == last - 1 && i + 1 < v->lines.n) {
			mvprintw(y, 0, "... %zu more lines: enlarge the window",
				 v->lines.n - i);
			break;
		}
		if (l->kind == L_HEAD)
			attron(A_REVERSE);
		else if (l->kind == L_TITLE)
			attron(A_BOLD);
		mvaddnstr(y, 0, l->text, COLS);
		attroff(A_REVERSE | A_BOLD);
	}
	if (last >= 0)
		mvaddnstr(last, 0, v->status, COLS > 0 ? COLS - 1 : 0);
	refresh();
}

/* Until t (monotonic seconds) or a signal; in the view (v) also q, which
 * returns true.  The view never blocks longer than TICK_MS, so it sees a
 * signal's flag soon (whether or not getch() returns early on EINTR). */
static bool wait_until(double t, const struct view *v)
{
	struct timespec ts;
	double d;
	int ch;

	while (!top_stop && (d = t - now()) > 0) {
		if (v) {
			timeout(d * 1000 < TICK_MS ? (int)(d * 1000) + 1 :
				TICK_MS);
			ch = getch();
			if (ch == 'q' || ch == 'Q')
				return true;
			if (ch == KEY_RESIZE || ch == 12 /* ^L */)
				draw(v);
			continue;
		}
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && errno != EINTR)
			break;
	}
	return false;
}

/*
 * A sample every interval until a signal (or q), from first on: in the
 * view v, or (v NULL) as plain text or JSON, no terminal control, then
 * only one if once.  An rfsd that stops answering ends plain output
 * (exit 1): a script reading it wants to know.  The view says so and
 * goes on.
 */
static int top_loop(const struct rfsctl_cfg *g, unsigned int interval,
		    bool once, struct rfs_top_snap *first, struct view *v)
{
	char err[RFS_CTL_ERR_LEN], clock[16];
	struct rfs_top_snap prev = *first;
	struct lines l = {}, *out = v ? &v->lines : &l;
	int ret = EXIT_SUCCESS;
	double next = prev.t;
	bool reset;
	size_t i;

	while (!top_stop) {
		next += interval;
		if (wait_until(next, v) || top_stop)
			break;
		if (step(g, interval, &prev, out, clock, &reset,
			 v ? v->status : err, v ? sizeof(v->status) :
			 sizeof(err))) {
			if (!v)
				p_err("%s", err);
			ret = v ? ret : EXIT_FAILURE;
		} else if (v) {
			if (reset)
				snprintf(v->reset_at, sizeof(v->reset_at), "%s",
					 clock);
			snprintf(v->status, sizeof(v->status), "q: quit%s%s%s",
				 v->reset_at[0] ? "  (counters reset at " : "",
				 v->reset_at, v->reset_at[0] ? ")" : "");
		}
		if (v)
			draw(v);
		for (i = 0; !v && !ret && !g->json && i < l.n; i++)
			printf("%s\n", l.v[i].text);
		if (!v && !ret && !g->json && !once)
			printf("\n");
		fflush(stdout);
		if (once || ret)
			break;
		/* fell behind (a slow reply): the next interval is a whole
		 * one from now */
		if (next + interval <= now())
			next = now();
	}
	free(prev.rows);
	free(l.v);
	return ret;
}

/* The view, until q, Ctrl-C, SIGTERM or SIGHUP. */
static int top_view(const struct rfsctl_cfg *g, unsigned int interval,
		    struct rfs_top_snap *first)
{
	struct view v = {};
	char clock[16];
	int ret;

	atexit(view_end);
	view_screen = newterm(NULL, stdout, stdin);
	if (!view_screen) {
		p_err("can't start the terminal view on '%s': not a terminal ncurses knows; try --once",
		      getenv("TERM") ? getenv("TERM") : "");
		free(first->rows);
		return EXIT_FAILURE;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* the first sample: its table with no rates yet */
	wall_clock(clock, sizeof(clock));
	format(&v.lines, first, NULL, interval, clock, false);
	snprintf(v.status, sizeof(v.status), "q: quit  (rates after %us)",
		 interval);
	draw(&v);
	ret = top_loop(g, interval, false, first, &v);
	view_end();
	free(v.lines.v);
	return ret;
}

static int do_top(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct top_cfg *c = cfg;
	struct rfs_top_snap first;
	char err[RFS_CTL_ERR_LEN];

	struct sigaction sa = { .sa_handler = top_signal };

	/* rfsd must answer before the screen is taken: its error then
	 * reads like any other command's, on a terminal left alone */
	if (fetch(g, &first, err, sizeof(err))) {
		p_err("%s", err);
		return EXIT_FAILURE;
	}
	/* ours before ncurses' newterm(): it sets its own only where none
	 * is */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* keys come from stdin: without a terminal there the view could
	 * not be left with q, so it is plain text then too */
	if (c->once || g->json || !isatty(STDOUT_FILENO) ||
	    !isatty(STDIN_FILENO))
		return top_loop(g, c->interval, c->once, &first, NULL);
	return top_view(g, c->interval, &first);
}

const struct rfs_cmd rfs_cmd_top = DEFINE_COMMAND("top", top,
	do_top, "Show the counters as rates per CPU and interface, live.");
