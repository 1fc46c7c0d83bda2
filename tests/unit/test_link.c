// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/lib/rfs_link.c's reading of an RTM_GETLINK answer
 * (rfs_link_parse_rxq()): the RX queue count, the kernel's error, and
 * bytes no kernel sends (tests/fuzz/fuzz_netlink.c found the first).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "rfs_dp.h"

static char buf[8192] __attribute__((aligned(4)));

static struct nlmsghdr *newlink(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 7;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "veth0");
	return nlh;
}

static void rfs_test_rxq(void **state)
{
	struct nlmsghdr *nlh = newlink();
	__u32 n = 0;

	/* no count: a kernel without CONFIG_RPS */
	assert_int_equal(rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n),
			 -EOPNOTSUPP);
	mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, 8);
	assert_int_equal(rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n), 0);
	assert_int_equal(n, 8);
}

static void rfs_test_error(void **state)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;
	__u32 n = 0;

	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -ENODEV;
	assert_int_equal(rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n),
			 -ENODEV);
	/* codes no kernel sends: not negated into nonsense (INT_MIN has
	 * no positive), not taken for success */
	e->error = INT_MIN;
	assert_int_equal(rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n),
			 -EPROTO);
	e->error = -100000;
	assert_int_equal(rfs_link_parse_rxq(buf, nlh->nlmsg_len, 0, 0, &n),
			 -EPROTO);
}

/* A length past INT_MAX: libmnl took it for negative, so for one that
 * fits, and read past the buffer. */
static void rfs_test_huge_len(void **state)
{
	static const unsigned char msg[] = {
		0x74, 0x00, 0x00, 0x92, 0x00, 0x02, 0x00, 0x00,
		0x00, 0x4d, 0x00, 0x00, 0x00, 0x45, 0x4a, 0x4a,
		0x45, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00,
	};
	struct nlmsghdr *nlh = newlink();
	__u32 n = 0, len;

	memcpy(buf, msg, sizeof(msg));
	assert_int_equal(rfs_link_parse_rxq(buf, sizeof(msg), 0, 0, &n),
			 -EPROTO);
	/* the same after a good message */
	nlh = newlink();
	mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, 8);
	len = nlh->nlmsg_len;
	memcpy(buf + len, msg, sizeof(msg));
	assert_int_equal(rfs_link_parse_rxq(buf, len + sizeof(msg), 0, 0, &n),
			 -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_rxq),
		cmocka_unit_test(rfs_test_error),
		cmocka_unit_test(rfs_test_huge_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
