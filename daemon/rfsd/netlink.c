// SPDX-License-Identifier: GPL-2.0
/*
 * Link events.  An XDP program goes away with its interface, but our
 * handle and pins would stay: so on RTM_DELLINK the interface is
 * forgotten.  One moved to another network namespace keeps its program,
 * which would steer there with nobody owning it: it is detached there
 * first (netns.c).  Another tool replacing our XDP program makes the
 * interface lost.  Events lost to a full socket buffer (ENOBUFS) are made
 * up for by checking every attached interface still exists.  A new
 * default route can make a link one the config picks: the links are
 * looked at again.
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "rfsd.h"

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
	struct rfsd_link_msg m;
	int oif;

	if (rfsd_route_default_oifs(nlh, &oif, 1))
		rfsd_ifaces_rescan(ifs);
	if (rfsd_link_parse(nlh, &m))
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELLINK && m.nsid >= 0 && m.new_ifindex)
		rfsd_ifaces_link_moved(ifs, m.l.ifindex, m.nsid, m.new_ifindex);
	else if (nlh->nlmsg_type == RTM_DELLINK)
		rfsd_ifaces_link_gone(ifs, m.l.ifindex);
	else if (m.l.name[0])
		rfsd_ifaces_link_new(ifs, &m.l);
	if (nlh->nlmsg_type == RTM_NEWLINK && m.has_xdp)
		rfsd_ifaces_link_xdp(ifs, m.l.ifindex, m.xdp_prog);
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
		      struct rfsd_ifaces *ifs, char *err, size_t len)
{
	struct rfsd_netlink *nl = calloc(1, sizeof(*nl));
	const char *what = "open rtnetlink for link events";
	int sz = 1 << 20, e = ENOMEM;

	*out = NULL;
	if (!nl)
		goto fail;
	nl->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!nl->nl || mnl_socket_bind(nl->nl, RTMGRP_LINK | RTMGRP_IPV4_ROUTE |
				     RTMGRP_IPV6_ROUTE, MNL_SOCKET_AUTOPID)) {
		e = errno;
		goto fail;
	}
	nl->w.fd = mnl_socket_get_fd(nl->nl);
	/* a burst of veth deletions must not overflow it: best effort */
	if (setsockopt(nl->w.fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(nl->w.fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	nl->w.fn = nl_event;
	nl->loop = loop;
	nl->ifs = ifs;
	e = -rfsd_watch_add(loop, &nl->w, EPOLLIN);
	if (!e) {
		*out = nl;
		return 0;
	}
	what = "watch rtnetlink";
fail:
	snprintf(err, len, "can't %s: %s", what, strerror(e));
	if (nl && nl->nl)
		mnl_socket_close(nl->nl);
	free(nl);
	return -e;
}

void rfsd_netlink_close(struct rfsd_netlink *nl)
{
	if (!nl)
		return;
	rfsd_watch_del(nl->loop, &nl->w);
	mnl_socket_close(nl->nl);
	free(nl);
}
