// SPDX-License-Identifier: GPL-2.0
/*
 * Reaching an interface that moved to another network namespace.  The
 * move's RTM_DELLINK names the new namespace only by its netns id (as
 * seen from ours) and the new ifindex; RTM_SETLINK can't be addressed by
 * netns id (its IFLA_TARGET_NETNSID means "move to").  So the namespace
 * is looked for among the named ones (/run/netns) and those of running
 * processes, by asking the kernel for each one's id (RTM_GETNSID), and a
 * child process enters it to detach our program there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include "netns.h"

struct nsid_reply {
	int nsid;
};

static int nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nsid_reply *r = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct rtgenmsg))
		if (mnl_attr_get_type(a) == NETNSA_NSID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			r->nsid = (int)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* The id our namespace gives the namespace of fd, or -1. */
static int netns_id_of(struct mnl_socket *nl, int fd, unsigned int seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nsid_reply r = { .nsid = -1 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;
	ssize_t n;

	nlh->nlmsg_type = RTM_GETNSID;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, NETNSA_FD, (uint32_t)fd);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n > 0)
		mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), nsid_cb, &r);
	return r.nsid;
}

static int try_path(struct mnl_socket *nl, const char *path, int nsid,
		    unsigned int *seq)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (netns_id_of(nl, fd, ++*seq) == nsid)
		return fd;
	close(fd);
	return -1;
}

/* An fd of the namespace our namespace calls nsid, or -1. */
static int netns_fd_by_id(int nsid)
{
	char path[300];
	struct mnl_socket *nl;
	unsigned int seq = 0;
	struct dirent *de;
	int fd = -1;
	DIR *d;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		if (nl)
			mnl_socket_close(nl);
		return -1;
	}
	d = opendir("/run/netns");
	while (d && fd < 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		fd = try_path(nl, path, nsid, &seq);
	}
	if (d)
		closedir(d);
	d = opendir("/proc");
	while (d && fd < 0 && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		fd = try_path(nl, path, nsid, &seq);
	}
	if (d)
		closedir(d);
	mnl_socket_close(nl);
	return fd;
}

int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);
	int ns = netns_fd_by_id(nsid), status;
	pid_t pid;

	if (ns < 0)
		return -ENOENT;
	pid = fork();
	if (pid < 0) {
		close(ns);
		return -errno;
	}
	if (!pid) {
		/* only this child enters it: rfsd stays where it is */
		if (setns(ns, CLONE_NEWNET))
			_exit(1);
		_exit(bpf_xdp_detach(ifindex,
				     (generic ? XDP_FLAGS_SKB_MODE :
						XDP_FLAGS_DRV_MODE) |
				     XDP_FLAGS_REPLACE, &opts) ? 2 : 0);
	}
	close(ns);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -EINTR;
	return WEXITSTATUS(status) == 0 ? 0 :
	       WEXITSTATUS(status) == 1 ? -EPERM : -EIO;
}
