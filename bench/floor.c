// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the empty programs of bench/stats_floor.bpf.c on their
 * tracepoints until SIGTERM, SIGINT or SIGHUP (bench/profile.sh runs it
 * through the profile session, bench/profile.py reads their run counts;
 * bench/modes.sh runs it through mode tp-floor's cells).
 *
 *   floor
 *
 * Prints "attached" once all are attached; exits 1 with the cause when
 * they can't be loaded or attached (no BTF, no such tracepoint).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bench/stats_floor.skel.h"

int main(int argc, char **argv)
{
	struct rfs_floor *skel;
	sigset_t set;
	int e, sig;

	if (argc > 1) {
		fprintf(stderr, "usage: floor\n");
		return argc == 2 && (!strcmp(argv[1], "-h") ||
				     !strcmp(argv[1], "--help")) ? 0 : 2;
	}
	/* signals taken synchronously: the detach runs here, not in a
	 * handler racing the attach */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	skel = rfs_floor__open_and_load();
	if (!skel) {
		fprintf(stderr, "floor: can't load bench/stats_floor.bpf.c's programs: %s\n",
			strerror(errno));
		return 1;
	}
	e = rfs_floor__attach(skel);
	if (e) {
		fprintf(stderr, "floor: can't attach the empty programs to "
			"sock_recv_length, sock_send_length and "
			"xdp_cpumap_kthread: %s\n",
			strerror(-e));
		rfs_floor__destroy(skel);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
	rfs_floor__destroy(skel);
	return 0;
}
