// SPDX-License-Identifier: GPL-2.0
/*
 * rfsctl top's live view: the lines of top_fmt.c drawn with ncurses,
 * redrawn every interval and on a resize, until q, Ctrl-C, SIGTERM or
 * SIGHUP.  The only file of rfsctl that includes curses.
 *
 * The terminal is given back on every way out: endwin() on the normal
 * paths, and from an atexit handler for any exit() in between.  Signals
 * only set a flag; the loop never blocks longer than TICK_MS, so it sees
 * the flag soon (whether or not getch() returns early on EINTR).
 */
#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_client.h"
#include "top.h"

#define TICK_MS		200

static volatile sig_atomic_t view_stop;
static bool view_active;	/* between newterm() and endwin() */
static SCREEN *view_screen;

static void view_signal(int sig)
{
	view_stop = 1;
}

static void view_end(void)
{
	if (!view_active)
		return;
	view_active = false;
	endwin();
	delscreen(view_screen);
	view_screen = NULL;
}

/* What the view shows: the latest lines, and a message for the last
 * line (an error, or that rates come after one interval). */
struct view {
	struct rfs_top_lines lines;
	char status[RFS_CTL_ERR_LEN];
	/* when counters last went back: the title says so for one sample,
	 * the status line until the end, so a glance later still sees it */
	char reset_at[16];
};

static void draw(const struct view *v)
{
	int rows = LINES, cols = COLS, y, last;
	size_t i;

	erase();
	/* the last screen line is the status line */
	last = rows - 1;
	for (i = 0, y = 0; i < v->lines.n && y < last; i++, y++) {
		const struct rfs_top_line *l = &v->lines.v[i];

		/* more to show than fits: say so on the last free line */
		if (y == last - 1 && i + 1 < v->lines.n) {
			mvprintw(y, 0, "... %zu more lines: enlarge the window",
				 v->lines.n - i);
			break;
		}
		if (l->kind == RFS_TOP_L_HEAD)
			attron(A_REVERSE);
		else if (l->kind == RFS_TOP_L_TITLE)
			attron(A_BOLD);
		mvaddnstr(y, 0, l->text, cols);
		attroff(A_REVERSE | A_BOLD);
	}
	if (last >= 0)
		mvaddnstr(last, 0, v->status, cols > 0 ? cols - 1 : 0);
	refresh();
}

/* Take a sample and turn it into lines against prev; prev becomes it.
 * On failure prev is kept, so the next good sample's rates span the gap
 * (or, if rfsd came back with new maps, are told as a reset). */
static void sample(const struct rfsctl_cfg *g, unsigned int interval,
		   struct rfs_top_sample *prev, struct view *v)
{
	struct rfs_top_rate *rates;
	struct rfs_top_sample cur;
	char err[RFS_CTL_ERR_LEN], clock[16];
	size_t i;

	if (rfs_top_fetch(g, &cur, err, sizeof(err))) {
		snprintf(v->status, sizeof(v->status), "%s", err);
		return;
	}
	rates = calloc(cur.snap.n ? cur.snap.n : 1, sizeof(*rates));
	if (!rates) {
		rfs_top_sample_free(&cur);
		snprintf(v->status, sizeof(v->status), "out of memory");
		return;
	}
	rfs_top_rates(&prev->snap, &cur.snap, rates);
	rfs_top_clock(clock, sizeof(clock));
	for (i = 0; i < cur.snap.n; i++)
		if (rates[i].reset)
			snprintf(v->reset_at, sizeof(v->reset_at), "%s", clock);
	if (rfs_top_format(&v->lines, &cur, rates, interval, clock))
		snprintf(v->status, sizeof(v->status), "out of memory");
	else if (v->reset_at[0])
		snprintf(v->status, sizeof(v->status),
			 "q: quit  (counters reset at %s)", v->reset_at);
	else
		snprintf(v->status, sizeof(v->status), "q: quit");
	free(rates);
	rfs_top_sample_free(prev);
	*prev = cur;
}

static int view_start(void)
{
	struct sigaction sa = { .sa_handler = view_signal };

	/* ours before newterm(): ncurses then leaves SIGINT/SIGTERM alone
	 * (it only sets its own handlers where none is) */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(view_end);
	view_screen = newterm(NULL, stdout, stdin);
	if (!view_screen) {
		p_err("can't start the terminal view on '%s': not a terminal ncurses knows; try --once",
		      getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	view_active = true;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	return 0;
}

int rfs_top_view(const struct rfsctl_cfg *g, unsigned int interval,
		 struct rfs_top_sample *first)
{
	struct rfs_top_sample prev = *first;
	struct view v = {};
	char clock[16];
	double next, left;
	int ch;

	if (view_start()) {
		rfs_top_sample_free(&prev);
		return EXIT_FAILURE;
	}
	/* the first sample: its table with no rates yet */
	rfs_top_clock(clock, sizeof(clock));
	rfs_top_format(&v.lines, &prev, NULL, interval, clock);
	snprintf(v.status, sizeof(v.status), "q: quit  (rates after %us)",
		 interval);
	draw(&v);
	next = prev.snap.t + interval;
	while (!view_stop) {
		left = next - rfs_top_now();
		if (left <= 0) {
			sample(g, interval, &prev, &v);
			draw(&v);
			next += interval;
			/* fell behind (a slow reply): start afresh from now */
			if (next <= rfs_top_now())
				next = rfs_top_now() + interval;
			continue;
		}
		timeout(left * 1000 < TICK_MS ? (int)(left * 1000) + 1 :
			TICK_MS);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch == KEY_RESIZE || ch == 12 /* ^L */)
			draw(&v);
	}
	view_end();
	rfs_top_lines_free(&v.lines);
	rfs_top_sample_free(&prev);
	return EXIT_SUCCESS;
}
