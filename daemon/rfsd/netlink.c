// SPDX-License-Identifier: GPL-2.0
/*
 * Link events.  An XDP program goes away with its interface, but our
 * handle and pins would stay: so on RTM_DELLINK the interface is
 * forgotten.  One moved to another network namespace keeps its program,
 * which would steer there with nobody owning it: it is detached there
 * first.  A rename is followed.  Another tool replacing our XDP program
 * (ip link set ... xdp obj ...) makes the interface lost: logged, dropped,
 * shown as lost in status.  Events lost to a full socket buffer (ENOBUFS) are made up
 * for by checking every attached interface still exists.
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "ifaces.h"
#include "log.h"
#include "netlink.h"

#define RFSD_NL_BUF	(64 * 1024)
#define RFSD_NL_RCVBUF	(1 << 20)

struct rfsd_netlink {
	struct rfsd_watch w;
	struct rfsd_loop *loop;
	struct rfsd_ifaces *ifs;	/* where the events go */
	struct mnl_socket *nl;
	char buf[RFSD_NL_BUF];
};

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rfsd_ifaces *ifs = data;
	const struct ifinfomsg *ifi;
	const struct nlattr *a;
	const char *name = NULL;
	int nsid = -1, new_ifindex = 0;
	bool has_xdp = false;
	__u32 xdp_prog = 0;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	/* AF_BRIDGE ones say a port left its bridge, not that it is gone */
	if (ifi->ifi_family != AF_UNSPEC)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) == IFLA_IFNAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			name = mnl_attr_get_str(a);
		/* a move to another netns: where it went, and as what */
		if (mnl_attr_get_type(a) == IFLA_NEW_NETNSID &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			nsid = (int)mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == IFLA_NEW_IFINDEX &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			new_ifindex = (int)mnl_attr_get_u32(a);
		/* which XDP program the link runs now */
		if (mnl_attr_get_type(a) == IFLA_XDP) {
			const struct nlattr *x;

			has_xdp = true;
			mnl_attr_for_each_nested(x, a)
				if (mnl_attr_get_type(x) == IFLA_XDP_PROG_ID &&
				    mnl_attr_validate(x, MNL_TYPE_U32) >= 0)
					xdp_prog = mnl_attr_get_u32(x);
		}
	}
	if (nlh->nlmsg_type == RTM_DELLINK && nsid >= 0 && new_ifindex)
		rfsd_ifaces_link_moved(ifs, ifi->ifi_index, nsid, new_ifindex);
	else if (nlh->nlmsg_type == RTM_DELLINK)
		rfsd_ifaces_link_gone(ifs, ifi->ifi_index);
	else if (name)
		rfsd_ifaces_link_new(ifs, ifi->ifi_index, name);
	if (nlh->nlmsg_type == RTM_NEWLINK && has_xdp)
		rfsd_ifaces_link_xdp(ifs, ifi->ifi_index, xdp_prog);
	return MNL_CB_OK;
}

static void nl_event(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_netlink *nl = rfsd_container_of(w, struct rfsd_netlink, w);

	for (;;) {
		ssize_t n;

		n = mnl_socket_recvfrom(nl->nl, nl->buf, sizeof(nl->buf));
		if (n < 0) {
			if (errno == EINTR || errno == ENOSPC)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == ENOBUFS) {
				pr_warn("link events lost: socket buffer full; checking attached interfaces\n");
				rfsd_ifaces_resync(nl->ifs);
				continue;
			}
			pr_warn("can't read link events: %s\n", strerror(errno));
			return;
		}
		mnl_cb_run(nl->buf, n, 0, 0, link_cb, nl->ifs);
	}
}

int rfsd_netlink_open(struct rfsd_netlink **out, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err,
		      size_t len)
{
	struct rfsd_netlink *nl;
	int sz = RFSD_NL_RCVBUF, fd;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		snprintf(err, len, "can't open rtnetlink: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	nl->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!nl->nl || mnl_socket_bind(nl->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID)) {
		int e = errno;

		snprintf(err, len, "can't open rtnetlink for link events: %s",
			 strerror(e));
		if (nl->nl)
			mnl_socket_close(nl->nl);
		free(nl);
		return -e;
	}
	fd = mnl_socket_get_fd(nl->nl);
	/* a burst of veth deletions must not overflow it: best effort */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	nl->w.fd = fd;
	nl->w.fn = nl_event;
	nl->loop = loop;
	nl->ifs = ifs;
	if (rfsd_watch_add(loop, &nl->w, EPOLLIN)) {
		int e = errno;

		snprintf(err, len, "can't watch rtnetlink: %s", strerror(e));
		mnl_socket_close(nl->nl);
		free(nl);
		return -e;
	}
	*out = nl;
	return 0;
}

void rfsd_netlink_close(struct rfsd_netlink *nl)
{
	if (!nl)
		return;
	rfsd_watch_del(nl->loop, &nl->w);
	mnl_socket_close(nl->nl);
	free(nl);
}
