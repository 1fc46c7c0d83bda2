// SPDX-License-Identifier: GPL-2.0
/*
 * top: rfsd's counters as rates, refreshed every interval.  On a terminal
 * the live view (top_view.c); otherwise, or with --once or -j, plain text
 * or JSON: one block per interval, or one after a single interval.
 *
 * Rates are differences of two stats replies, so the first figures come
 * one interval after the start.  The busiest flows are not shown: the
 * only source is rfsd's flows sampler, which counts per flow for a
 * window of its own and is too dear to run every second.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_client.h"
#include "top.h"

const struct rfs_opt top_opts[] = {
	DEFINE_OPTION("interval", OPT_UINT, struct top_cfg, interval,
		      .metavar = "SECONDS",
		      .help = "refresh every SECONDS (default: 1)"),
	DEFINE_OPTION("once", OPT_BOOL, struct top_cfg, once,
		      .help = "one sample after one interval, as plain text"),
	END_OPTIONS
};
const struct top_cfg top_defaults = { .interval = 1 };

static volatile sig_atomic_t plain_stop;

static void plain_signal(int sig)
{
	plain_stop = 1;
}

/* Sleep until t (monotonic seconds) or a signal. */
static void sleep_until(double t)
{
	struct timespec ts;
	double d;

	while (!plain_stop && (d = t - rfs_top_now()) > 0) {
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) && errno != EINTR)
			return;
	}
}

/* v with one decimal, as printed: json-c keeps the text it is given */
static struct json_object *json_num(double v)
{
	char buf[64];

	/* NaN is no JSON number: a percentage of nothing is null */
	if (isnan(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.1f", v);
	return json_object_new_double_s(v, buf);
}

static bool rate_known(const struct rfs_top_rate *r, enum rfs_top_ctr k)
{
	return rfs_top_ctr_is_kthread(k) ? r->kthread_valid : r->valid;
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
		json_object_object_add(o, key, rate_known(r, k) ?
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

static void print_json(const struct rfs_top_sample *s,
		       const struct rfs_top_rate *rates, double secs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cpus = json_object_new_array();
	struct json_object *ifs = json_object_new_array();
	const struct rfs_top_row *row;
	size_t i;

	json_object_object_add(o, "seconds", json_num(secs));
	for (i = 0; i < s->snap.n; i++) {
		row = &s->snap.rows[i];
		if (row->kind == RFS_TOP_CPU)
			json_object_array_add(cpus, rate_json(row, &rates[i]));
		else if (row->kind == RFS_TOP_IFACE)
			json_object_array_add(ifs, rate_json(row, &rates[i]));
		else
			json_object_object_add(o, "total",
					       rate_json(row, &rates[i]));
	}
	json_object_object_add(o, "per_cpu", cpus);
	json_object_object_add(o, "interfaces", ifs);
	p_json(o);
	json_object_put(o);
}

static int print_plain(const struct rfs_top_sample *s,
		       const struct rfs_top_rate *rates, unsigned int interval)
{
	struct rfs_top_lines l = {};
	char clock[16];
	size_t i;

	rfs_top_clock(clock, sizeof(clock));
	if (rfs_top_format(&l, s, rates, interval, clock)) {
		rfs_top_lines_free(&l);
		p_err("can't format the sample: out of memory");
		return EXIT_FAILURE;
	}
	for (i = 0; i < l.n; i++)
		printf("%s\n", l.v[i].text);
	rfs_top_lines_free(&l);
	return EXIT_SUCCESS;
}

/*
 * Plain text or JSON, no terminal control: one block per interval until
 * a signal, or (once) a single one.  first: taken already.  An rfsd that
 * stops answering ends it (exit 1): a script reading it wants to know.
 */
static int top_plain(const struct rfsctl_cfg *g, unsigned int interval,
		     bool once, struct rfs_top_sample *first)
{
	struct rfs_top_sample prev = *first, cur;
	struct sigaction sa = { .sa_handler = plain_signal };
	char err[RFS_CTL_ERR_LEN];
	struct rfs_top_rate *rates;
	int ret = EXIT_SUCCESS;
	double next = prev.snap.t;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (!plain_stop) {
		next += interval;
		sleep_until(next);
		if (plain_stop)
			break;
		if (rfs_top_fetch(g, &cur, err, sizeof(err))) {
			p_err("%s", err);
			ret = EXIT_FAILURE;
			break;
		}
		rates = calloc(cur.snap.n ? cur.snap.n : 1, sizeof(*rates));
		if (!rates) {
			rfs_top_sample_free(&cur);
			p_err("can't compute rates: out of memory");
			ret = EXIT_FAILURE;
			break;
		}
		rfs_top_rates(&prev.snap, &cur.snap, rates);
		if (g->json) {
			print_json(&cur, rates, cur.snap.t - prev.snap.t);
		} else {
			ret = print_plain(&cur, rates, interval);
			if (!once)
				printf("\n");
		}
		fflush(stdout);
		free(rates);
		rfs_top_sample_free(&prev);
		prev = cur;
		if (once || ret)
			break;
		/* a slow reply must not make the next interval shorter */
		if (next < prev.snap.t - interval)
			next = prev.snap.t;
	}
	rfs_top_sample_free(&prev);
	return ret;
}

int do_top(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct top_cfg *c = cfg;
	struct rfs_top_sample first;
	char err[RFS_CTL_ERR_LEN];

	/* rfsd must answer before the screen is taken: its error then
	 * reads like any other command's, on a terminal left alone */
	if (rfs_top_fetch(g, &first, err, sizeof(err))) {
		p_err("%s", err);
		return EXIT_FAILURE;
	}
	/* keys come from stdin: without a terminal there the view could
	 * not be left with q, so it is plain text then too */
	if (c->once || g->json || !isatty(STDOUT_FILENO) ||
	    !isatty(STDIN_FILENO))
		return top_plain(g, c->interval, c->once, &first);
	return rfs_top_view(g, c->interval, &first);
}
