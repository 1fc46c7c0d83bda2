// SPDX-License-Identifier: GPL-2.0
/* One RTM_GETLINK request for one link, answered synchronously on a
 * socket of its own: rfsd's event socket (daemon/rfsd/netlink.c) is
 * subscribed to link events, whose messages would mix with the answer. */
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "rfs_dp.h"

/* A link message without VF info (not asked for) fits with room. */
#define RFS_LINK_BUF	(32 * 1024)

static int rfs_link_rxq_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) == IFLA_NUM_RX_QUEUES &&
		    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			*(__u32 *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

int rfs_link_parse_rxq(const void *buf, size_t len, unsigned int seq,
		       unsigned int portid, __u32 *out)
{
	__u32 n, q = 0;
	size_t off;

	/* mnl_nlmsg_ok() compares lengths as int: one past INT_MAX passes
	 * as negative, and mnl_cb_run() reads past the buffer */
	for (off = 0; off + sizeof(struct nlmsghdr) <= len;
	     off += NLMSG_ALIGN(n)) {
		memcpy(&n, (const char *)buf + off, sizeof(n));
		if (n > INT_MAX)
			return -EPROTO;
		if (n < sizeof(struct nlmsghdr) || n > len - off)
			break;
	}
	errno = 0;
	if (mnl_cb_run(buf, len, seq, portid, rfs_link_rxq_cb, &q) < 0) {
		/* an NLMSG_ERROR's code is the sender's word: anything but
		 * an errno the kernel could send is a broken answer */
		int e = errno;

		return e > 0 && e < 4096 ? -e : -EPROTO;
	}
	if (!q)
		return -EOPNOTSUPP;
	*out = q;
	return 0;
}

int rfs_link_num_rx_queues(int ifindex, __u32 *out)
{
	struct mnl_socket *nl;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	unsigned int seq, portid;
	char buf[RFS_LINK_BUF] __attribute__((aligned(8)));
	ssize_t n;
	int e = 0;

	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		e = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	seq = (unsigned int)time(NULL);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		e = -errno;
		goto out;
	}
	/* one message back, no dump and no ack asked for: the link, or an
	 * error (ENODEV), which mnl_cb_run returns as -1 with errno set */
	do
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	e = n < 0 ? -errno : rfs_link_parse_rxq(buf, n, seq, portid, out);
out:
	if (nl)
		mnl_socket_close(nl);
	return e;
}
