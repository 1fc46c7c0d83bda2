// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/lib/rfs_link.c: rfs_link_parse_rxq() on any bytes as they could
 * come back from RTM_GETLINK (a count it returns must be one of the
 * input's IFLA_NUM_RX_QUEUES attributes), and on a well-formed
 * RTM_NEWLINK built from the input (it must find the count put there
 * among the other attributes).
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "fuzz.h"
#include "rfs_dp.h"

/* Some attribute of the input's holds v as IFLA_NUM_RX_QUEUES. */
static bool has_rxq_attr(const uint8_t *d, size_t size, __u32 v)
{
	size_t o;

	for (o = 0; o + 8 <= size; o++) {
		__u16 type, alen;
		__u32 val;

		memcpy(&alen, d + o, 2);
		memcpy(&type, d + o + 2, 2);
		memcpy(&val, d + o + 4, 4);
		if ((type & NLA_TYPE_MASK) == IFLA_NUM_RX_QUEUES && alen >= 8 &&
		    val == v)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + MNL_SOCKET_BUFFER_SIZE);
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	__u32 n = 0, want;
	uint8_t val[16] = { 0 };
	size_t i;
	int r;

	if (!buf)
		abort();
	/* as received: raw bytes, aligned as a socket buffer is */
	memcpy(buf, data, size);
	r = rfs_link_parse_rxq(buf, size, 0, 0, &n);
	RFS_FUZZ_CHECK(r <= 0, "returned %d", r);
	RFS_FUZZ_CHECK(r || (n && has_rxq_attr(data, size, n)),
		       "count %u is in no attribute", n);

	/* well-formed: the count among attributes the input names */
	if (size < 4)
		goto out;
	memcpy(&want, data, 4);
	memcpy(val, data, size < sizeof(val) ? size : sizeof(val));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 7;
	for (i = 4; i + 1 < size && i < 200; i += 2)
		if ((data[i] & NLA_TYPE_MASK) != IFLA_NUM_RX_QUEUES)
			mnl_attr_put(nlh, data[i], data[i + 1] % 16, val);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "veth0");
	mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, want);
	n = 0;
	r = rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n);
	RFS_FUZZ_CHECK(want ? !r && n == want : r == -EOPNOTSUPP,
		       "count %u: %d, %u", want, r, n);
out:
	free(buf);
	return 0;
}
