// SPDX-License-Identifier: GPL-2.0
/* top, with its live view (ncurses, in this file only).  The busiest flows
 * are not shown: rfsd's flows sampler counts per flow for a window of its
 * own, too dear to run every second. */
#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

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

/* ---- a row's fields, each in its JSON and maybe a column; rfsctl(8)
 * says on which CPU each is counted ---- */

enum top_how { T_RATE, T_DESIRED, T_LOCAL, T_BACKLOG, T_KWAIT };

#define CPUS	(1 << RFS_TOP_CPU | 1 << RFS_TOP_TOTAL)
#define IFACES	(1 << RFS_TOP_IFACE)
#define ALL	(CPUS | IFACES)

/* its counter, key in rfsd's stats and ours (a rate's: "_per_s" added),
 * the kinds of rows (bits) whose JSON and text have it, head and width */
struct top_col {
	enum top_how how;
	int ctr;
	const char *key;
	unsigned int json, text;
	const char *head;
	int w;
};

static const struct top_col top_cols[] = {
	{ T_RATE, RFS_TOP_SEEN, "seen", ALL, IFACES, "seen/s", 8 },
	{ T_RATE, RFS_TOP_STEERED, "steered", ALL, ALL, "steered/s", 9 },
	{ T_DESIRED, 0, "to_desired_pct", ALL, ALL, "desired%", 8 },
	{ T_RATE, RFS_TOP_TO_DESIRED, "to_desired", ALL, 0, NULL, 0 },
	{ T_RATE, RFS_TOP_HELD, "held", ALL, ALL, "held/s", 8 },
	{ T_RATE, RFS_TOP_SWITCHES, "switches", ALL, ALL, "switch/s", 8 },
	{ T_RATE, RFS_TOP_DEQUEUED, "dequeued", ALL, CPUS, "deq/s", 8 },
	{ T_RATE, RFS_TOP_DROPS, "enqueue_drops", ALL, CPUS, "drops/s", 8 },
	{ T_BACKLOG, 0, "backlog", CPUS, CPUS, "backlog", 7 },
	{ T_LOCAL, 0, "locality_pct", ALL, CPUS, "local%", 6 },
	{ T_RATE, RFS_TOP_RECV_LOCAL, "recv_local", ALL, 0, NULL, 0 },
	{ T_RATE, RFS_TOP_RECV_REMOTE, "recv_remote", ALL, 0, NULL, 0 },
	/* the kthreads are the datapath's, not an interface's */
	{ T_KWAIT, 0, "kthread_wait_us_per_run", CPUS, CPUS, "kwait", 6 },
	{ T_RATE, RFS_TOP_KTHREAD_WAIT_NS, "kthread_wait_ns", CPUS, 0, NULL, 0 },
	{ T_RATE, RFS_TOP_KTHREAD_RUNS, "kthread_runs", CPUS, 0, NULL, 0 },
};

#define for_each_col(c)	for (c = top_cols; c < top_cols + \
			     sizeof(top_cols) / sizeof(top_cols[0]); c++)

/* The field's value in row r, NaN for none. */
static double col_value(const struct top_col *c, const struct rfs_top_row *r)
{
	switch (c->how) {
	case T_RATE:
		return (rfs_top_ctr_is_kthread(c->ctr) ? r->kthread_valid :
			r->valid) ? r->per_s[c->ctr] : NAN;
	case T_DESIRED:
		return r->to_desired_pct;
	case T_LOCAL:
		return r->locality_pct;
	case T_BACKLOG:
		return r->backlog < 0 ? NAN : r->backlog;
	case T_KWAIT:
		return r->kwait_us;
	}
	return NAN;
}

/* ---- one sample ---- */

static struct rfs_top_row *add_row(struct rfs_top_snap *s,
				   enum rfs_top_kind kind, const char *name,
				   struct json_object *o)
{
	struct rfs_top_row *r = &s->rows[s->n++];
	const struct top_col *c;

	r->kind = kind;
	snprintf(r->name, sizeof(r->name), "%s", name);
	for_each_col(c)
		if (c->how == T_RATE)
			r->ctr[c->ctr] = rfs_u64(o, c->key);
	r->backlog = rfs_num(o, "backlog", RFS_TOP_NO_BACKLOG);
	r->has_kthread = json_object_object_get_ex(o, "kthread_wait_ns", NULL) &&
			 json_object_object_get_ex(o, "kthread_runs", NULL);
	return r;
}

/* The requests of /metrics as rows, rated against prev (NULL: none) */
static int fetch(const struct rfsctl_cfg *g, const struct rfs_top_snap *prev,
		 struct rfs_top_snap *s, char *err, size_t len)
{
	struct json_object *snap = NULL, *sta, *total, *per, *ifs, *o;
	long long sum = RFS_TOP_NO_BACKLOG;
	struct rfs_top_row *r;
	char cpu[16];
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = rfs_call(g, NULL, TOP_REPLY_MS, &snap, err, len);
	/* the time of the counters: taken as soon as they are read */
	s->t = now();
	sta = rfs_get(snap, "stats");
	per = rfs_get(sta, "per_cpu");
	ifs = rfs_get(snap, "interfaces");
	s->n_cpus = rfs_len(per);
	s->n_ifaces = rfs_len(ifs);
	if (!ret && (!json_object_object_get_ex(sta, "total", &total) ||
		     !json_object_is_type(per, json_type_array))) {
		snprintf(err, len, "unexpected reply from rfsd: stats has no \"total\" or \"per_cpu\"");
		ret = -EPROTO;
	}
	s->rows = ret ? NULL : calloc(s->n_cpus + 1 + s->n_ifaces,
				      sizeof(*s->rows));
	if (!ret && !s->rows) {
		snprintf(err, len, "can't sample rfsd: out of memory");
		ret = -ENOMEM;
	}
	for (i = 0; !ret && i < s->n_cpus; i++) {
		o = json_object_array_get_idx(per, i);
		snprintf(cpu, sizeof(cpu), "%lld", rfs_num(o, "cpu", i));
		r = add_row(s, RFS_TOP_CPU, cpu, o);
		/* the total backlog is the sum of the CPUs' */
		if (r->backlog != RFS_TOP_NO_BACKLOG)
			sum = (sum < 0 ? 0 : sum) + r->backlog;
	}
	if (!ret)
		add_row(s, RFS_TOP_TOTAL, "all", total)->backlog = sum;
	for (i = 0; !ret && i < s->n_ifaces; i++) {
		o = json_object_array_get_idx(ifs, i);
		r = add_row(s, RFS_TOP_IFACE, rfs_str(o, "interface", "?"),
			    rfs_get(o, "total"));
		if (!json_object_object_get_ex(o, "total", NULL)) {
			snprintf(err, len, "unexpected reply from rfsd: stats %s has no \"total\"",
				 r->name);
			ret = -EPROTO;
		}
	}
	snprintf(s->version, sizeof(s->version), "%s",
		 rfs_str(rfs_get(snap, "status"), "version", ""));
	json_object_put(snap);
	if (ret) {
		free(s->rows);
		s->rows = NULL;
	} else {
		rfs_top_rates(prev, s);
	}
	return ret;
}

/* ---- the screen as lines of text, for the live view and plain output
 * alike: a title, the CPUs and total, the interfaces, in 80 columns ---- */

struct line {
	int attr;		/* in the live view: the title bold, heads reversed */
	char text[128];
};

struct lines {
	size_t n;
	struct line *v;		/* room for a title, 4 more, each row */
};

static struct line *line_new(struct lines *l, int attr)
{
	struct line *v = &l->v[l->n++];

	v->attr = attr;
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

/* A row's line, or (row NULL) the head of the rows of kind.  CPU ids
 * (< 256) and "all" take 3 columns. */
static void row_line(struct lines *out, enum rfs_top_kind kind,
		     const struct rfs_top_row *row)
{
	struct line *l = line_new(out, row ? 0 : A_REVERSE);
	bool iface = kind == RFS_TOP_IFACE;
	const struct top_col *c;
	double v;
	char cell[16];
	int off;

	off = snprintf(l->text, sizeof(l->text), "%-*s", iface ? 15 : 3,
		       row ? row->name : iface ? "IFACE" : "CPU");
	for_each_col(c) {
		if (!(c->text & 1 << kind))
			continue;
		v = row ? col_value(c, row) : NAN;
		if (!row)
			snprintf(cell, sizeof(cell), "%s", c->head);
		else if (c->how == T_KWAIT)
			rfs_top_kwait_text(cell, sizeof(cell), v);
		else
			fmt_cell(cell, sizeof(cell), v,
				 c->how == T_DESIRED || c->how == T_LOCAL);
		off += snprintf(l->text + off, sizeof(l->text) - off, " %*s",
				c->w, cell);
	}
}

static int format(struct lines *out, const struct rfs_top_snap *s,
		  unsigned int interval, const char *clock, bool reset)
{
	struct line *v = realloc(out->v, (s->n + 5) * sizeof(*v));
	size_t i;

	if (!v)
		return -1;
	out->v = v;
	out->n = 0;
	snprintf(line_new(out, A_BOLD)->text, sizeof(v->text),
		 "rfsd %s  %zu CPUs  %zu interface%s  every %us  %s%s",
		 s->version[0] ? s->version : "?", s->n_cpus, s->n_ifaces,
		 s->n_ifaces == 1 ? "" : "s", interval, clock,
		 reset ? "  (counters reset)" : "");
	row_line(out, RFS_TOP_CPU, NULL);
	for (i = 0; i <= s->n_cpus; i++)
		row_line(out, s->rows[i].kind, &s->rows[i]);
	line_new(out, 0);
	if (!s->n_ifaces)
		snprintf(line_new(out, 0)->text, sizeof(v->text),
			 "no interface attached");
	else
		row_line(out, RFS_TOP_IFACE, NULL);
	for (; i < s->n; i++)
		row_line(out, RFS_TOP_IFACE, &s->rows[i]);
	return 0;
}

/* v with prec decimals, as printed (json-c keeps the text it is given);
 * NaN, no JSON number, as null */
static struct json_object *json_num(double v, int prec)
{
	char buf[64];

	if (isnan(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	return json_object_new_double_s(v, buf);
}

static void print_json(const struct rfs_top_snap *s, double secs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cpus = json_object_new_array();
	struct json_object *ifs = json_object_new_array();
	const struct rfs_top_row *r;
	const struct top_col *c;
	struct json_object *j;
	char key[64];
	size_t i;

	json_object_object_add(o, "seconds", json_num(secs, 1));
	for (i = 0, r = s->rows; i < s->n; i++, r++) {
		j = json_object_new_object();
		if (r->kind == RFS_TOP_CPU)
			json_object_object_add(j, "cpu",
					       json_object_new_int(atoi(r->name)));
		else if (r->kind == RFS_TOP_IFACE)
			json_object_object_add(j, "name",
					       json_object_new_string(r->name));
		for_each_col(c) {
			if (!(c->json & 1 << r->kind))
				continue;
			snprintf(key, sizeof(key), "%s%s", c->key,
				 c->how == T_RATE ? "_per_s" : "");
			json_object_object_add(j, key, json_num(col_value(c, r),
						c->how == T_BACKLOG ? 0 : 1));
		}
		json_object_object_add(j, "reset",
				       json_object_new_boolean(r->reset));
		if (r->kind == RFS_TOP_TOTAL)
			json_object_object_add(o, "total", j);
		else
			json_object_array_add(r->kind == RFS_TOP_CPU ? cpus :
					      ifs, j);
	}
	json_object_object_add(o, "per_cpu", cpus);
	json_object_object_add(o, "interfaces", ifs);
	p_json(o);
	json_object_put(o);
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

struct view {
	struct lines lines;
	char status[RFS_CTL_ERR_LEN];	/* the last line: an error or a hint */
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
		attron(l->attr);
		mvaddnstr(y, 0, l->text, COLS);
		attroff(l->attr);
	}
	if (last >= 0)
		mvaddnstr(last, 0, v->status, COLS > 0 ? COLS - 1 : 0);
	refresh();
}

/* Until t (monotonic seconds) or a signal; in the view (v) also q, which
 * returns true.  No wait is longer than TICK_MS, so a signal's flag is
 * seen soon (whether or not getch() returns early on EINTR). */
static bool wait_until(double t, const struct view *v)
{
	double d;
	int ms, ch;

	while (!top_stop && (d = t - now()) > 0) {
		ms = d * 1000 < TICK_MS ? (int)(d * 1000) + 1 : TICK_MS;
		if (!v) {
			poll(NULL, 0, ms);
			continue;
		}
		timeout(ms);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			return true;
		if (ch == KEY_RESIZE || ch == 12 /* ^L */)
			draw(v);
	}
	return false;
}

/* A sample every interval until a signal (or q), after prev: in the view
 * v, or (v NULL) as plain text or JSON, no terminal control, then only
 * one if once.  An rfsd that stops answering ends plain output (exit 1):
 * a script reading it wants to know.  The view says so and goes on.  A
 * sample that fails leaves prev: the next rates span the gap. */
static int top_loop(const struct rfsctl_cfg *g, unsigned int interval,
		    bool once, struct rfs_top_snap *prev, struct view *v)
{
	char err[RFS_CTL_ERR_LEN], clock[16];
	struct lines l = {}, *out = v ? &v->lines : &l;
	double next = prev->t;
	struct rfs_top_snap cur;
	bool reset = false;
	int ret = 0;
	size_t i;

	while (!top_stop) {
		next += interval;
		if (wait_until(next, v) || top_stop)
			break;
		ret = fetch(g, prev, &cur, err, sizeof(err));
		wall_clock(clock, sizeof(clock));
		for (i = 0; !ret && i < cur.n; i++)
			reset |= cur.rows[i].reset;
		if (!ret && g->json) {
			print_json(&cur, cur.t - prev->t);
		} else if (!ret && format(out, &cur, interval, clock, reset)) {
			snprintf(err, sizeof(err), "can't show the sample: out of memory");
			ret = -1;
		}
		if (cur.rows) {
			free(prev->rows);
			*prev = cur;
		}
		if (v) {
			if (reset)
				snprintf(v->reset_at, sizeof(v->reset_at), "%s",
					 clock);
			if (ret)
				snprintf(v->status, sizeof(v->status), "%s", err);
			else
				snprintf(v->status, sizeof(v->status),
					 "q: quit%s%s%s", v->reset_at[0] ?
					 "  (counters reset at " : "",
					 v->reset_at, v->reset_at[0] ? ")" : "");
			draw(v);
			ret = 0;
		} else if (ret) {
			p_err("%s", err);
			break;
		}
		for (i = 0; !v && !g->json && i < l.n; i++)
			printf("%s\n", l.v[i].text);
		if (!v && !g->json && !once)
			printf("\n");
		fflush(stdout);
		if (once)
			break;
		reset = false;
		/* fell behind (a slow reply): a whole interval from now */
		if (next + interval <= now())
			next = now();
	}
	free(prev->rows);
	free(l.v);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int do_top(const struct rfsctl_cfg *g, const void *cfg)
{
	struct sigaction sa = { .sa_handler = top_signal };
	const struct top_cfg *c = cfg;
	char err[RFS_CTL_ERR_LEN];
	struct rfs_top_snap first;
	struct view v = {};
	int ret;

	/* rfsd must answer before the screen is taken: its error then
	 * reads like any other command's, on a terminal left alone */
	if (fetch(g, NULL, &first, err, sizeof(err))) {
		p_err("%s", err);
		return EXIT_FAILURE;
	}
	/* before newterm(): ncurses sets its own only where none is */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* keys come from stdin: without a terminal there the view could
	 * not be left with q, so it is plain text then too */
	if (c->once || g->json || !isatty(STDOUT_FILENO) ||
	    !isatty(STDIN_FILENO))
		return top_loop(g, c->interval, c->once, &first, NULL);
	atexit(view_end);
	view_screen = newterm(NULL, stdout, stdin);
	if (!view_screen) {
		p_err("can't start the terminal view on '%s': not a terminal ncurses knows; try --once",
		      getenv("TERM") ? getenv("TERM") : "");
		free(first.rows);
		return EXIT_FAILURE;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	wall_clock(err, sizeof(err));
	format(&v.lines, &first, c->interval, err, false);
	snprintf(v.status, sizeof(v.status), "q: quit  (rates after %us)",
		 c->interval);
	draw(&v);
	ret = top_loop(g, c->interval, false, &first, &v);
	view_end();
	free(v.lines.v);
	return ret;
}

const struct rfs_cmd rfs_cmd_top = DEFINE_COMMAND("top", top,
	do_top, "Show the counters as rates per CPU and interface, live.");
