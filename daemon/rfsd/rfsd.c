// SPDX-License-Identifier: GPL-2.0
/*
 * rfsd: keeps the xdp-rfs datapath loaded, attached and configured, and
 * serves the control socket, in the foreground (Type=notify).  This file
 * wires the parts together (HACKING.md has the map); none of them calls
 * back into it.  One event loop runs everything: signals and a 1 s timer
 * here, the control socket, the flows sampler, link events and /metrics.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "server.h"

struct rfsd {
	struct rfsd_loop loop;
	struct rfs_dp *dp;

	/* the command line: NULL or 0 where not given */
	const char *opt_config, *opt_socket, *opt_pin_dir, *opt_cgroup;
	const char *opt_trace;
	bool opt_cleanup, unsafe_noguard, opt_features, opt_check, opt_json;
	bool opt_verbose;
	enum rfs_trace_mode trace_mode;
	const char *config_path;

	struct rfsd_config cfg;
	struct rfs_budget budget;	/* the dp reads it */
	char cgroup[4096];

	struct rfsd_ifaces ifaces;
	struct rfsd_kscheds ksched;
	struct rfsd_sampler sampler;
	struct rfsd_cmd_ctx cmd;	/* what the command handlers get */
	struct rfsd_server *srv;
	struct rfsd_dispatch dispatch;		/* the server's and metrics' */
	struct rfsd_metrics *metrics;		/* NULL: not serving */
	int metrics_fd;			/* from systemd, or -1 */
	struct rfsd_netlink *nl;
	struct rfsd_watch sig, tmr, job;

	char refresh_err[RFS_ERR_LEN];	/* last one logged */
	char status[256];		/* last STATUS= sent */
};

/* The options: the parser and the help text come from this table, so
 * that they can't drift (rfsd(8) repeats the help word for word). */
static const struct rfsd_opt {
	const char *name, *metavar, *help;	/* help: NULL, not listed */
	char short_opt;
	bool arg;		/* takes one: a const char * at off */
	size_t off;		/* in struct rfsd; a bool if !arg */
} rfsd_opts[] = {
#define OPT(n, m, a, f, h) { n, m, h, 0, a, offsetof(struct rfsd, f) }
	OPT("config", "FILE", true, opt_config,
	    "config file (default " RFSD_CONFIG_DEFAULT ")"),
	OPT("socket", "PATH", true, opt_socket,
	    "control socket (default " RFS_CTL_SOCKET_DEFAULT ")"),
	OPT("pin-dir", "DIR", true, opt_pin_dir,
	    "bpffs pin dir (default " RFS_PIN_DIR_DEFAULT ")"),
	OPT("cgroup", "DIR", true, opt_cgroup,
	    "cgroup v2 dir for sockops (default: the cgroup2 root)"),
	OPT("trace-mode", "MODE", true, opt_trace,
	    "auto, tp_btf, fexit or kprobe (default auto)"),
	OPT("cleanup", NULL, false, opt_cleanup,
	    "remove everything xdp-rfs attached or pinned under\n"
	    "the pin dir (and orphaned rfs_xdp programs), exit"),
	OPT("unsafe-noguard", NULL, false, unsafe_noguard,
	    "honour 'noguard = yes' in the config: the in-order\n"
	    "rule off on those interfaces, flows may be\n"
	    "reordered (benchmarks only; refused without it)"),
	OPT("check-config", "[--json]", false, opt_check,
	    "print what the config would attach on this\n"
	    "node (this netns) and how, attach nothing, exit"),
	OPT("json", NULL, false, opt_json, NULL),
	OPT("features", NULL, false, opt_features,
	    "print what this kernel offers the datapath and\n"
	    "whether flows can be kept in order on it, exit\n"
	    "(0: they can, 1: they can't)"),
	{ "verbose", .help = "debug messages, libbpf and libxdp output",
	  .short_opt = 'v', .off = offsetof(struct rfsd, opt_verbose) },
	{ "help", .help = "this help", .short_opt = 'h' },
	{ "version", .help = "print the version", .short_opt = 'V' },
};

#define N_OPTS	(sizeof(rfsd_opts) / sizeof(rfsd_opts[0]))

static void usage(void)
{
	const struct rfsd_opt *o;
	const char *h, *nl;
	int n;

	printf("Usage: rfsd [OPTIONS]\n"
	       "Keep the xdp-rfs datapath (Receive Flow Steering on XDP) attached and\n"
	       "serve rfsctl.  Runs in the foreground; under systemd, Type=notify.\n\n");
	for (o = rfsd_opts; o < rfsd_opts + N_OPTS; o++) {
		if (!o->help)
			continue;
		n = o->short_opt ? printf("  -%c, ", o->short_opt) : printf("  ");
		n += printf("--%s%s%s", o->name, o->metavar ? " " : "",
			    o->metavar ?: "");
		printf("%*s", n < 22 ? 24 - n : 2, "");
		/* each line of help in the same column */
		for (h = o->help; (nl = strchr(h, '\n')); h = nl + 1)
			printf("%.*s\n%24s", (int)(nl - h), h, "");
		printf("%s\n", h);
	}
	printf("\nSignals: SIGHUP re-reads the config; SIGTERM or SIGINT exit, leaving the\n"
	       "datapath pinned and steering for the next rfsd (detach_on_exit = yes in\n"
	       "the config detaches it instead; rfsd --cleanup removes it).\n"
	       "See rfsd(8) and rfsctl(8).\n");
}

static void update_status(struct rfsd *d)
{
	size_t n = d->dp->n_ifs;
	size_t waiting = rfsd_ifaces_waiting(&d->ifaces);
	char buf[sizeof(d->status)], w[64] = "";

	if (waiting)
		snprintf(w, sizeof(w), "; %zu configured not attached", waiting);
	snprintf(buf, sizeof(buf), "steering %zu interface%s%s", n,
		 n == 1 ? "" : "s", w);
	if (!strcmp(buf, d->status))
		return;
	snprintf(d->status, sizeof(d->status), "%s", buf);
	sd_notifyf(0, "STATUS=%s", buf);
}

/* The listening socket systemd passed for /metrics (rfsd-metrics.socket),
 * or -1: under rfsd.service, which lets rfsd make no IP socket, the one
 * way to serve it.  libmicrohttpd serves one; the rest is closed. */
static int metrics_fd_passed(void)
{
	int n = sd_listen_fds(1), fd, got = -1;

	if (n < 0)
		pr_warn("can't take the sockets systemd passed: %s\n",
			strerror(-n));
	for (fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		if (got < 0 &&
		    sd_is_socket_inet(fd, AF_UNSPEC, SOCK_STREAM, 1, 0) > 0) {
			got = fd;
			continue;
		}
		pr_warn("closing fd %d systemd passed: rfsd serves /metrics on one listening TCP socket\n",
			fd);
		close(fd);
	}
	return got;
}

/* Serve /metrics on the socket systemd passed, which wins over
 * metrics_listen, else where the config says (or stop): 0, or -errno
 * with the cause logged.  A reload that can't listen at the new address
 * keeps the old one. */
static int metrics_apply(struct rfsd *d)
{
	const char *want = d->cfg.metrics_listen, *have = rfsd_metrics_addr(d->metrics);
	struct rfsd_metrics *m = NULL;
	int e, fd = d->metrics_fd;
	char err[256];

	if (fd >= 0 && want)
		pr_info("metrics_listen '%s' ignored: systemd passed rfsd a socket for /metrics\n",
			want);
	if (fd >= 0 ? have != NULL :
	    (!want && !have) || (want && have && !strcmp(want, have)))
		return 0;
	if (want || fd >= 0) {
		e = rfsd_metrics_open(&m, &d->loop, &d->dispatch,
				      fd >= 0 ? NULL : want, fd, err,
				      sizeof(err));
		if (e) {
			/* the unit's RestrictAddressFamilies= refused socket() */
			pr_warn("%s%s%s\n", err,
				(e == -EAFNOSUPPORT || e == -EPERM) &&
				getenv("INVOCATION_ID") ? "; rfsd.service lets rfsd open no IP socket: systemctl enable --now rfsd-metrics.socket; systemctl restart rfsd" : "",
				have ? "; still serving the old address" : "");
			return e;
		}
		pr_info("serving metrics on http://%s/metrics%s\n",
			rfsd_metrics_addr(m),
			fd >= 0 ? " (the socket systemd passed)" : "");
	} else {
		pr_info("no longer serving metrics on %s\n", have);
	}
	rfsd_metrics_close(d->metrics);
	d->metrics = m;
	return 0;
}

/* The flow table budgets cfg asks for, the rest from MemTotal. */
static void budget_of(const struct rfsd_config *cfg, struct rfs_budget *b)
{
	char per[32], all[32];
	__u64 mem = 0;
	int e = rfs_meminfo_total("/proc/meminfo", &mem);

	rfs_budget_default(e ? 0 : mem, b);
	if (e && (!cfg->budget_iface || !cfg->budget_total))
		pr_warn("can't read MemTotal from /proc/meminfo: %s; flow table budgets not in the config are fixed ones\n",
			strerror(-e));
	if (cfg->budget_iface)
		b->iface = cfg->budget_iface;
	if (cfg->budget_total)
		b->total = cfg->budget_total;
	rfs_budget_fmt(b->iface, per, sizeof(per));
	rfs_budget_fmt(b->total, all, sizeof(all));
	pr_info("flow table budget: %s per interface, %s in total\n", per,
		all);
}

static void early_drop_apply(struct rfsd *d)
{
	int e = rfs_dp_set_early_drop(d->dp, d->cfg.early_drop);

	if (e)
		pr_warn("can't turn early drop %s: %s\n",
			d->cfg.early_drop ? "on" : "off", strerror(-e));
}

static void reload(struct rfsd *d)
{
	struct rfsd_config old = d->cfg, cfg;
	char err[RFSD_CONFIG_ERR_LEN];

	sd_notify(0, "RELOADING=1\nSTATUS=reloading the config");
	if (rfsd_config_load(d->config_path, d->opt_config, d->unsafe_noguard,
			     &cfg, err)) {
		pr_warn("%s; keeping the running config\n", err);
	} else {
		pr_info("reloading config '%s'\n", d->config_path);
		d->cfg = cfg;
		budget_of(&d->cfg, &d->budget);
		rfsd_ifaces_reload(&d->ifaces, &old);
		early_drop_apply(d);
		rfsd_ksched_set(&d->ksched, &d->cfg.ksched);
		rfsd_config_free(&old);
		metrics_apply(d);
	}
	rfsd_server_set_groups(d->srv, NULL, d->cfg.admin_group);
	d->status[0] = '\0';
	sd_notify(0, "READY=1");
	update_status(d);
}

static void on_signal(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd *d = rfsd_container_of(w, struct rfsd, sig);
	struct signalfd_siginfo si;

	while (read(w->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			reload(d);
			continue;
		}
		/* SIGTERM or SIGINT: the others are not in the set */
		pr_info("%s: %s\n", strsignal(si.ssi_signo),
			d->cfg.detach_on_exit ?
			"detaching and exiting (detach_on_exit)" :
			"exiting; the datapath stays attached and steering for the next rfsd (rfsd --cleanup removes it)");
		d->loop.stop = true;
	}
}

static void on_timer(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd *d = rfsd_container_of(w, struct rfsd, tmr);
	char err[RFS_ERR_LEN] = "";

	rfsd_timer_ack(w);
	rfsd_server_tick(d->srv, time(NULL));
	rfsd_metrics_tick(d->metrics);
	if (rfs_dp_refresh_cpus(d->dp, err)) {
		/* say it once, not every second */
		if (strcmp(err, d->refresh_err))
			pr_warn("can't refresh online CPUs: %s\n", err);
		snprintf(d->refresh_err, sizeof(d->refresh_err), "%s", err);
	} else if (d->refresh_err[0]) {
		pr_info("online CPUs refreshed again\n");
		d->refresh_err[0] = '\0';
	}
	rfsd_ksched_new_kthreads(&d->ksched);	/* a CPU back online */
	rfsd_ksched_tick(&d->ksched);
	rfsd_leaving_tick(d->dp, d->cfg.leaving_warn_s);
	update_status(d);
}

static void on_job(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd *d = rfsd_container_of(w, struct rfsd, job);
	struct json_object *reply;
	struct rfsd_client *c;

	rfsd_timer_ack(w);
	while (rfsd_sampler_done(&d->sampler, d->dp, &c, &reply)) {
		if (c)
			rfsd_server_reply(d->srv, c, reply);
		/* a flows request for an interface that was being sampled */
		rfsd_server_kick(d->srv);
	}
	update_status(d);
}

static int parse_args(struct rfsd *d, int argc, char **argv)
{
	struct option lo[N_OPTS + 1] = {};
	const struct rfsd_opt *o;
	int c, i, n = N_OPTS;

	/* getopt's value: the letter, or 256 + the index */
	for (i = 0; i < n; i++)
		lo[i] = (struct option){ rfsd_opts[i].name, rfsd_opts[i].arg,
					 NULL, rfsd_opts[i].short_opt ?: 256 + i };
	while ((c = getopt_long(argc, argv, "vhV", lo, NULL)) != -1) {
		for (i = 0; i < n && c != lo[i].val; i++)
			;
		o = &rfsd_opts[i];
		if (i == n) {
			fprintf(stderr, "Try 'rfsd --help'.\n");
			return -EINVAL;
		} else if (c == 'h') {
			usage();
			exit(EXIT_SUCCESS);
		} else if (c == 'V') {
			printf("rfsd %s\n", RFS_VERSION);
			exit(EXIT_SUCCESS);
		} else if (o->arg) {
			*(const char **)((char *)d + o->off) = optarg;
		} else {
			*(bool *)((char *)d + o->off) = true;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rfsd: unexpected argument '%s'; try 'rfsd --help'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (d->opt_trace && rfs_trace_mode_parse(d->opt_trace, &d->trace_mode)) {
		fprintf(stderr, "rfsd: can't use trace mode '%s': not auto, tp_btf, fexit or kprobe\n",
			d->opt_trace);
		return -EINVAL;
	}
	d->config_path = d->opt_config ?: RFSD_CONFIG_DEFAULT;
	return 0;
}

static int open_fds(struct rfsd *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);

	d->loop.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->loop.epfd < 0)
		return -errno;
	d->sig.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	d->sampler.tfd = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->sig.fd < 0 || d->sampler.tfd < 0)
		return -errno;
	d->sig.fn = on_signal;
	d->tmr.fn = on_timer;
	d->job.fd = d->sampler.tfd;
	d->job.fn = on_job;
	return rfsd_watch_add(&d->loop, &d->sig, EPOLLIN) ?:
	       rfsd_watch_add(&d->loop, &d->job, EPOLLIN);
}

int main(int argc, char **argv)
{
	struct rfsd d = {
		.loop.epfd = -1, .sampler.tfd = -1,
		.sig.fd = -1, .tmr.fd = -1, .job.fd = -1, .metrics_fd = -1,
		.dispatch = { .cmds = rfsd_cmds, .ctx = &d.cmd },
	};
	char err[RFSD_CONFIG_ERR_LEN] = "", caps[128];
	struct rfs_dp_opts opts = {};
	const char *socket_path;
	bool adopted = false, served = false;
	int ret = EXIT_FAILURE, e, ncaps;

	if (parse_args(&d, argc, argv))
		return EXIT_FAILURE;
	rfs_log_init("rfsd", d.opt_verbose);
	rfs_log_hook_libs();

	if (d.opt_check)
		return rfsd_check_config(d.config_path, d.opt_config,
					 d.unsafe_noguard, d.opt_json);
	if (d.opt_features) {
		struct rfs_kfeatures f;

		rfs_kfeatures_detect(&f);
		return rfsd_print_kernel(stdout, &f) ? EXIT_SUCCESS :
						      EXIT_FAILURE;
	}
	if (d.opt_cleanup) {
		/* no config needed: only the pin dir matters */
		opts.pin_dir = d.opt_pin_dir ?: RFS_PIN_DIR_DEFAULT;
		if (!rfs_dp_cleanup(opts.pin_dir, err))
			return EXIT_SUCCESS;
		pr_warn("cleanup %s: %s\n", opts.pin_dir, err);
		return EXIT_FAILURE;
	}
	if (rfsd_config_load(d.config_path, d.opt_config, d.unsafe_noguard,
			     &d.cfg, err))
		goto fail;
	if (d.unsafe_noguard)
		pr_warn("WARNING: --unsafe-noguard: interfaces with 'noguard = yes' in the config steer WITHOUT the in-order rule; their flows may be reordered (benchmarks only)\n");
	socket_path = d.opt_socket ?: d.cfg.socket ?: RFS_CTL_SOCKET_DEFAULT;
	opts.pin_dir = d.opt_pin_dir ?: d.cfg.pin_dir ?: RFS_PIN_DIR_DEFAULT;
	opts.pin_at = getenv("RFSD_PIN_AT");
	if (d.opt_cgroup || d.cfg.cgroup) {
		snprintf(d.cgroup, sizeof(d.cgroup), "%s",
			 d.opt_cgroup ?: d.cfg.cgroup);
	} else if (rfsd_cgroup_root(d.cgroup, sizeof(d.cgroup), err,
				    sizeof(err))) {
		goto fail;
	}
	opts.cgroup = d.cgroup;
	opts.sock_flow_entries = d.cfg.sock_flow_entries;
	opts.trace_mode = d.trace_mode;
	opts.allow_unordered = d.cfg.allow_unordered;
	budget_of(&d.cfg, &d.budget);
	opts.budget = &d.budget;

	d.metrics_fd = metrics_fd_passed();
	e = open_fds(&d);
	if (e) {
		pr_warn("can't set up the event loop: %s\n", strerror(-e));
		goto out;
	}
	/* claim the socket path first: a second rfsd stops here */
	if (rfsd_server_bind(&d.srv, &d.loop, &d.dispatch, socket_path,
			     d.cfg.socket_group, d.cfg.admin_group, err,
			     sizeof(err)))
		goto fail;
	sd_notify(0, "STATUS=loading the datapath");
	e = rfs_dp_open(&d.dp, &opts, &adopted, err);
	if (e) {
		pr_warn("can't open the datapath under '%s': %s\n", opts.pin_dir,
			err[0] ? err : strerror(-e));
		goto out;
	}
	d.ifaces = (struct rfsd_ifaces){ .dp = d.dp, .cfg = &d.cfg };
	early_drop_apply(&d);
	d.cmd = (struct rfsd_cmd_ctx){
		.dp = d.dp, .ifaces = &d.ifaces, .sampler = &d.sampler,
		.ksched = &d.ksched, .metrics = &d.metrics,
	};
	e = rfs_dp_sweep_orphans(d.dp, 0);
	if (e < 0)
		pr_warn("can't look for orphaned XDP programs: %s\n",
			strerror(-e));
	if (adopted) {
		pr_info("adopted datapath from %s: %zu interfaces\n",
			d.dp->pin_dir, d.dp->n_ifs);
		if (d.cfg.sock_flow_entries &&
		    d.cfg.sock_flow_entries != d.dp->globals.sock_flow_mask + 1)
			pr_info("kept the adopted sock_flow_entries %u (config says %u; rfsctl set to change it)\n",
				d.dp->globals.sock_flow_mask + 1,
				d.cfg.sock_flow_entries);
	} else {
		pr_info("loaded datapath: pinned under %s, cgroup %s, trace mode %s, %u sock flow entries\n",
			d.dp->pin_dir, d.dp->cgroup,
			rfs_trace_mode_name(d.dp->trace_mode),
			d.dp->globals.sock_flow_mask + 1);
	}
	rfsd_log_kernel(d.dp, d.cfg.allow_unordered);
	/* subscribe before attaching: no deletion may slip in between */
	if (rfsd_netlink_open(&d.nl, &d.loop, &d.ifaces, err, sizeof(err)))
		goto fail;
	rfsd_ifaces_resync(&d.ifaces);
	rfsd_ifaces_start(&d.ifaces);
	/* what an earlier rfsd set on the kthreads is undone or redone
	 * while CAP_SYS_NICE is still there (kernel drops it next) */
	d.ksched = (struct rfsd_kscheds){
		.dp = d.dp, .want = d.cfg.ksched, .gen = 1, .can_nice = true,
	};
	rfsd_ksched_adopt(&d.ksched);
	/* loaded and attached: from here on only what attach on request,
	 * reload and the netns-move path need (caps.c) */
	e = rfsd_caps_drop(d.cfg.ksched.kind != RFSD_KSCHED_KERNEL, caps,
			   sizeof(caps), &ncaps);
	if (e)
		pr_warn("can't drop capabilities: %s; running with more than it needs\n",
			strerror(-e));
	else
		pr_debug("capabilities: kept %s, dropped %d others\n",
			 caps[0] ? caps : "none", ncaps);
	d.ksched.can_nice = e ? true : strstr(caps, "cap_sys_nice") != NULL;
	/* the kthreads made at load: their policy before the first frame */
	rfsd_ksched_new_kthreads(&d.ksched);
	e = rfsd_kflood_start(&d.ksched, &d.loop);
	if (e)
		pr_warn("can't watch the cpumap kthreads for floods: %s; a flooded SCHED_FIFO kthread keeps its policy\n",
			strerror(-e));
	if (rfsd_server_listen(d.srv, err, sizeof(err)))
		goto fail;
	pr_info("listening on %s\n", socket_path);
	if (metrics_apply(&d))
		goto out;
	sd_notify(0, "READY=1");
	update_status(&d);

	if (!rfsd_timer_add(&d.loop, &d.tmr, 1000) &&
	    !rfsd_loop_run(&d.loop))
		ret = EXIT_SUCCESS;
	sd_notify(0, d.cfg.detach_on_exit ? "STOPPING=1\nSTATUS=detaching" :
		  "STOPPING=1\nSTATUS=leaving the datapath steering");
	rfsd_sampler_cancel(&d.sampler, d.dp);
	served = true;
	goto out;
fail:
	pr_warn("%s\n", err);
out:
	/* the one way out: a stop detaches only when configured to; a
	 * failed start removes what it made, and leaves what it adopted */
	rfsd_kflood_stop(&d.ksched);
	rfsd_metrics_close(d.metrics);
	rfsd_server_close(d.srv);
	rfsd_netlink_close(d.nl);
	if (d.dp)
		rfs_dp_close(d.dp, served ? d.cfg.detach_on_exit : !adopted);
	if (served && ret == EXIT_SUCCESS)
		pr_info(d.cfg.detach_on_exit ? "detached; bye\n" :
			"left the datapath pinned and steering; bye\n");
	free(d.ifaces.st);
	rfsd_config_free(&d.cfg);
	/* those never opened are -1: EBADF, nothing closed */
	close(d.sig.fd);
	close(d.tmr.fd);
	close(d.sampler.tfd);
	close(d.loop.epfd);
	return ret;
}
