// SPDX-License-Identifier: GPL-2.0
/*
 * rfs_tpprobe: attach a do-nothing BPF program to a raw tracepoint for a
 * while, the control of tests/integration/test_order.sh
 * test_no_sched_switch: the checks that no xdp-rfs program runs per
 * context switch must flag this one (attached to sched_switch, it runs
 * on every switch).
 *
 *   rfs_tpprobe TRACEPOINT SECONDS
 *
 * Prints "prog_id N" once attached, then holds the attachment until
 * SECONDS pass or SIGTERM/SIGINT comes; closing the link detaches it, so
 * nothing outlives the process.  The program is named "lab_tpprobe" (no
 * rfs_ prefix: it is not xdp-rfs's).  Raw bpf(2), no libbpf: tests/tools
 * are built without libraries, and a raw tracepoint program needs no BTF.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t rfs_stop;

static void rfs_on_signal(int sig)
{
	rfs_stop = 1;
}

static long rfs_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	/* r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info;
	struct timespec end, now;
	union bpf_attr attr;
	int prog_fd, link_fd;
	char log[4096] = "";

	if (argc != 3) {
		fprintf(stderr, "usage: rfs_tpprobe TRACEPOINT SECONDS\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (__u64)(unsigned long)"GPL";
	attr.log_buf = (__u64)(unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	strncpy(attr.prog_name, "lab_tpprobe", sizeof(attr.prog_name) - 1);
	prog_fd = rfs_bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0) {
		fprintf(stderr, "rfs_tpprobe: can't load the program: %s\n%s",
			strerror(errno), log);
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (__u64)(unsigned long)argv[1];
	attr.raw_tracepoint.prog_fd = prog_fd;
	link_fd = rfs_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link_fd < 0) {
		fprintf(stderr, "rfs_tpprobe: can't attach to '%s': %s\n",
			argv[1], strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = prog_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (rfs_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "rfs_tpprobe: can't get the program id: %s\n",
			strerror(errno));
		return 1;
	}
	signal(SIGTERM, rfs_on_signal);
	signal(SIGINT, rfs_on_signal);
	printf("prog_id %u\n", info.id);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atoi(argv[2]);
	while (!rfs_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		usleep(50000);
	}
	close(link_fd);
	close(prog_fd);
	return 0;
}
