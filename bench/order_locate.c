// SPDX-License-Identifier: GPL-2.0
/*
 * order_locate: bench/order_locate.bpf.c on an interface until SIGTERM,
 * SIGINT or SIGHUP, then its counts as one JSON line on stdout.
 *
 *   order_locate IFACE [--target CPU]
 *
 * Every frame of IFACE goes to CPU's cpumap queue (default 1); the XDP
 * program counts the TCP data segments that arrive behind the highest
 * sequence number seen so far, and the cpumap program does the same when
 * the target dequeues them.  Prints "attached" once attached.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "bench/order_locate.skel.h"

#define LOC_RING	2048	/* the cpumap ring rfsd gives a CPU by default */

static int loc_usage(int rc)
{
	fprintf(rc ? stderr : stdout, "usage: order_locate IFACE [--target CPU]\n");
	return rc;
}

int main(int argc, char **argv)
{
	struct bpf_cpumap_val val = { .qsize = LOC_RING };
	struct order_locate *skel;
	int ifindex, e, sig, rc = 1;
	__u32 target = 1;
	sigset_t set;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return loc_usage(0);
	if (argc == 4 && !strcmp(argv[2], "--target"))
		target = strtoul(argv[3], NULL, 10);
	else if (argc != 2)
		return loc_usage(2);
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "order_locate: no interface '%s': %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	skel = order_locate__open();
	if (!skel) {
		fprintf(stderr, "order_locate: can't open its BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	skel->rodata->loc_target_cpu = target;
	e = order_locate__load(skel);
	if (e) {
		fprintf(stderr, "order_locate: can't load its programs: %s\n",
			strerror(-e));
		goto out;
	}
	val.bpf_prog.fd = bpf_program__fd(skel->progs.loc_dequeue);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.loc_cpumap), &target,
				&val, 0)) {
		fprintf(stderr, "order_locate: can't give CPU %u a cpumap queue: %s\n",
			target, strerror(errno));
		goto out;
	}
	e = bpf_xdp_attach(ifindex, bpf_program__fd(skel->progs.loc_ingress),
			   XDP_FLAGS_DRV_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (e) {
		fprintf(stderr, "order_locate: can't attach XDP on iface '%s': %s\n",
			argv[1], strerror(-e));
		goto out;
	}
	printf("attached %s target %u\n", argv[1], target);
	fflush(stdout);
	sigwait(&set, &sig);
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	printf("{\"ingress_segments\": %llu, \"ingress_behind\": %llu, "
	       "\"rx_cpu_changes\": %llu, \"dequeue_segments\": %llu, "
	       "\"dequeue_behind\": %llu}\n",
	       (unsigned long long)skel->bss->ingress_segments,
	       (unsigned long long)skel->bss->ingress_behind,
	       (unsigned long long)skel->bss->ingress_rx_cpu_changes,
	       (unsigned long long)skel->bss->dequeue_segments,
	       (unsigned long long)skel->bss->dequeue_behind);
	rc = 0;
out:
	order_locate__destroy(skel);
	return rc;
}
