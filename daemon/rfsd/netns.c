// SPDX-License-Identifier: GPL-2.0
/*
 * What rtnetlink says of network namespaces: this one's links and default
 * routes, and how to reach one an interface moved to.  The move's
 * RTM_DELLINK names it only by netns id, and RTM_SETLINK can't address a
 * netns by id (IFLA_TARGET_NETNSID means "move to"): so the named
 * namespaces (/run/netns: ip netns, podman, CNI pods; /run/docker/netns),
 * then those of processes, are asked their id (RTM_GETNSID), and a child
 * enters the one found to detach our program.  A process's /proc/PID/ns/net
 * opens only to who may ptrace-read it: without CAP_SYS_PTRACE (the unit
 * gives none) not a container's.
 */
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include "rfsd.h"

int rfsd_link_parse(const struct nlmsghdr *nlh, struct rfsd_link_msg *m)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *x;

	memset(m, 0, sizeof(*m));
	m->nsid = -1;
	/* AF_BRIDGE ones say a port left its bridge, not that it is gone */
	if ((nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK) ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    ifi->ifi_family != AF_UNSPEC)
		return -1;
	m->l.ifindex = ifi->ifi_index;
	m->l.type = ifi->ifi_type;
	m->l.flags = ifi->ifi_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		int t = mnl_attr_get_type(a);

		if (t == IFLA_IFNAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(m->l.name, sizeof(m->l.name), "%s",
				 mnl_attr_get_str(a));
		else if (t == IFLA_NEW_NETNSID && mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			m->nsid = (int)mnl_attr_get_u32(a);
		else if (t == IFLA_NEW_IFINDEX && mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			m->new_ifindex = (int)mnl_attr_get_u32(a);
		if (t != IFLA_XDP)
			continue;
		m->has_xdp = true;
		mnl_attr_for_each_nested(x, a)
			if (mnl_attr_get_type(x) == IFLA_XDP_PROG_ID &&
			    mnl_attr_validate(x, MNL_TYPE_U32) >= 0)
				m->xdp_prog = mnl_attr_get_u32(x);
	}
	return 0;
}

int rfsd_route_default_oifs(const struct nlmsghdr *nlh, int *oifs, int max)
{
	const struct rtmsg *rt = mnl_nlmsg_get_payload(nlh);
	const struct rtnexthop *nh;
	const struct nlattr *a;
	__u32 table;
	int n = 0, left;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rt) || rt->rtm_dst_len ||
	    rt->rtm_type != RTN_UNICAST ||
	    (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6))
		return 0;
	table = rt->rtm_table;
	mnl_attr_for_each(a, nlh, sizeof(*rt)) {
		int t = mnl_attr_get_type(a);

		if (t == RTA_TABLE && mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			table = mnl_attr_get_u32(a);
		if (t == RTA_OIF && mnl_attr_validate(a, MNL_TYPE_U32) >= 0 &&
		    n < max)
			oifs[n++] = (int)mnl_attr_get_u32(a);
		if (t != RTA_MULTIPATH)
			continue;
		nh = mnl_attr_get_payload(a);
		left = mnl_attr_get_payload_len(a);
		while (left >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) &&
		       nh->rtnh_len <= left && n < max) {
			oifs[n++] = nh->rtnh_ifindex;
			left -= RTNH_ALIGN(nh->rtnh_len);
			nh = RTNH_NEXT(nh);
		}
	}
	return table == RT_TABLE_MAIN ? n : 0;
}

static struct mnl_socket *nl_socket(void)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);

	if (nl && mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/* Ask for type (an hdr-byte header, family first): a dump, or with fd >=
 * 0 the one answer about the netns of fd; cb gets what comes.  0 or
 * -errno. */
static int nl_ask(struct mnl_socket *nl, int type, size_t hdr, int family,
		  int fd, mnl_cb_t cb, void *data)
{
	char buf[RFSD_NL_BUF];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned int portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int r;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | (fd < 0 ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = type;
	*(unsigned char *)mnl_nlmsg_put_extra_header(nlh, hdr) = family;
	if (fd >= 0)
		mnl_attr_put_u32(nlh, NETNSA_FD, (uint32_t)fd);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		r = mnl_cb_run(buf, n, type, portid, cb, data);
		if (r <= MNL_CB_STOP || fd >= 0)
			return r < 0 ? -errno : 0;
	}
	return n < 0 ? -errno : -EIO;
}

struct links {
	struct rfsd_link *v;
	size_t n;
	int err;
};

/* A link into ls, or a default route's mark on its links. */
static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct links *ls = data;
	int oifs[32], n = rfsd_route_default_oifs(nlh, oifs, 32), i;
	struct rfsd_link_msg m;
	struct rfsd_link *v;
	size_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < ls->n; k++)
			if (ls->v[k].ifindex == oifs[i])
				ls->v[k].default_route = true;
	if (rfsd_link_parse(nlh, &m) || !m.l.name[0])
		return MNL_CB_OK;
	v = realloc(ls->v, (ls->n + 1) * sizeof(*v));
	if (!v) {
		ls->err = -ENOMEM;
		return MNL_CB_OK;
	}
	ls->v = v;
	v[ls->n++] = m.l;
	return MNL_CB_OK;
}

int rfsd_netns_links(struct rfsd_link **out, size_t *n, bool routes)
{
	struct mnl_socket *nl = nl_socket();
	struct links ls = {};
	int e;

	if (!nl)
		return -errno;
	e = nl_ask(nl, RTM_GETLINK, sizeof(struct ifinfomsg), AF_UNSPEC, -1,
		   dump_cb, &ls) ?: ls.err;
	if (!e && routes)
		e = nl_ask(nl, RTM_GETROUTE, sizeof(struct rtmsg), AF_UNSPEC, -1,
			   dump_cb, &ls);	/* every family's */
	mnl_socket_close(nl);
	if (e)
		free(ls.v);
	*out = e ? NULL : ls.v;
	*n = e ? 0 : ls.n;
	return e;
}

/* The id our namespace gives the one asked about. */
static int nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct rtgenmsg))
		if (mnl_attr_get_type(a) == NETNSA_NSID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			*(int *)data = (int)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* An fd of the namespace our namespace calls nsid, or -1: the named ones
 * first, then those of running processes. */
static int netns_fd_by_id(int nsid)
{
	const char *dirs = getenv("RFSD_TEST_NETNS_DIRS");
	struct mnl_socket *nl = nl_socket();
	glob_t g = { 0 };
	int fd = -1, id;
	size_t i;

	if (!nl)
		return -1;
	/* a test names its own directories instead of /run's */
	glob(dirs ? dirs : "/run/{netns,docker/netns}/*", GLOB_BRACE, NULL, &g);
	glob("/proc/[1-9]*/ns/net", GLOB_APPEND | GLOB_NOSORT, NULL, &g);
	for (i = 0; i < g.gl_pathc && fd < 0; i++) {
		fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
		id = -1;
		if (fd >= 0)
			nl_ask(nl, RTM_GETNSID, sizeof(struct rtgenmsg),
			       AF_UNSPEC, fd, nsid_cb, &id);
		if (fd >= 0 && id != nsid) {
			close(fd);
			fd = -1;
		}
	}
	globfree(&g);
	mnl_socket_close(nl);
	return fd;
}

int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);
	int ns = netns_fd_by_id(nsid), status;
	pid_t pid;

	if (ns < 0)
		return prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE, 0, 0, 0) == 1 ?
		       -ENOENT : -EACCES;
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
