// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/rfsd/netlink.c and netns.c fed rtnetlink messages built
 * here: which
 * routes make an interface a default-route one (IPv4 and IPv6, one next
 * hop or several, the main table only, unicast only), and that the events
 * reach the interfaces: a new default route makes rfsd look again, a new
 * link is handed on with its name, type and flags.
 *
 * Both are compiled into this test; the interfaces and the event loop
 * they call are stubs that record what they were told.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <net/if_arp.h>

#include "../../daemon/rfsd/netlink.c"
#include "../../daemon/rfsd/netns.c"

static int rfs_test_rescans;
static struct rfsd_link rfs_test_new;

void rfsd_ifaces_rescan(struct rfsd_ifaces *ifs) { rfs_test_rescans++; }
void rfsd_ifaces_link_new(struct rfsd_ifaces *ifs, const struct rfsd_link *l)
{
	rfs_test_new = *l;
}
void rfsd_ifaces_link_gone(struct rfsd_ifaces *ifs, int ifindex) {}
void rfsd_ifaces_link_xdp(struct rfsd_ifaces *ifs, int ifindex, __u32 id) {}
void rfsd_ifaces_link_moved(struct rfsd_ifaces *ifs, int ifindex, int nsid,
			    int new_ifindex) {}
void rfsd_ifaces_resync(struct rfsd_ifaces *ifs) {}
int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t ev)
{
	return 0;
}
void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w) {}

/* A route message: family, dst_len, type, table (>255 goes in RTA_TABLE),
 * then oif (0: none) or, if hops, a multipath of those ifindexes. */
static struct nlmsghdr *rfs_test_route(char *buf, int msg_type, int family,
				       int dst_len, int type, __u32 table,
				       int oif, const int *hops, int n_hops)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rt;
	struct nlattr *mp;
	int i;

	nlh->nlmsg_type = msg_type;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtm_family = family;
	rt->rtm_dst_len = dst_len;
	rt->rtm_type = type;
	rt->rtm_table = table > 255 ? RT_TABLE_UNSPEC : table;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	if (n_hops) {
		mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
		for (i = 0; i < n_hops; i++) {
			struct rtnexthop *nh = (void *)((char *)nlh +
							nlh->nlmsg_len);

			memset(nh, 0, sizeof(*nh));
			nh->rtnh_len = sizeof(*nh);
			nh->rtnh_ifindex = hops[i];
			nlh->nlmsg_len += RTNH_ALIGN(sizeof(*nh));
		}
		mnl_attr_nest_end(nlh, mp);
	}
	return nlh;
}

static void rfs_test_default_oifs(void **state)
{
	static const int two[] = { 7, 9 };
	static const struct {
		int msg, family, dst_len, type;
		__u32 table;
		int oif;
		const int *hops;
		int n_hops;
		int want, first;
	} t[] = {
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, 3, NULL, 0, 1, 3 },
		{ RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST, RT_TABLE_MAIN, 4, NULL, 0, 1, 4 },
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, 0, two, 2, 2, 7 },
		{ RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST, RT_TABLE_MAIN, 0, two, 2, 2, 7 },
		/* not a default route */
		{ RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST, RT_TABLE_MAIN, 3, NULL, 0, 0, 0 },
		/* another table, even one only RTA_TABLE can name */
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, 100, 3, NULL, 0, 0, 0 },
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, 1000, 3, NULL, 0, 0, 0 },
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_LOCAL, 3, NULL, 0, 0, 0 },
		/* a default that sends nowhere */
		{ RTM_NEWROUTE, AF_INET, 0, RTN_UNREACHABLE, RT_TABLE_MAIN, 0, NULL, 0, 0, 0 },
		{ RTM_NEWROUTE, AF_INET6, 0, RTN_BLACKHOLE, RT_TABLE_MAIN, 3, NULL, 0, 0, 0 },
		/* gone, and not a route family we steer */
		{ RTM_DELROUTE, AF_INET, 0, RTN_UNICAST, RT_TABLE_MAIN, 3, NULL, 0, 0, 0 },
		{ RTM_NEWROUTE, AF_BRIDGE, 0, RTN_UNICAST, RT_TABLE_MAIN, 3, NULL, 0, 0, 0 },
	};
	char buf[1024];
	int oifs[4], i, n;

	for (i = 0; i < (int)(sizeof(t) / sizeof(t[0])); i++) {
		struct nlmsghdr *nlh = rfs_test_route(buf, t[i].msg, t[i].family,
						      t[i].dst_len, t[i].type,
						      t[i].table, t[i].oif,
						      t[i].hops, t[i].n_hops);

		memset(oifs, 0, sizeof(oifs));
		n = rfsd_route_default_oifs(nlh, oifs, 4);
		if (n != t[i].want || (n && oifs[0] != t[i].first)) {
			print_error("case %d: %d oifs (first %d), want %d (%d)\n",
				    i, n, oifs[0], t[i].want, t[i].first);
			fail();
		}
		if (n == 2)
			assert_int_equal(oifs[1], 9);
	}
	/* no more than asked for */
	rfs_test_route(buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST,
		       RT_TABLE_MAIN, 0, two, 2);
	assert_int_equal(rfsd_route_default_oifs((void *)buf, oifs, 1), 1);
}

static void rfs_test_events(void **state)
{
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	char buf[1024];

	rfs_test_rescans = 0;
	nlh = rfs_test_route(buf, RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST,
			     RT_TABLE_MAIN, 5, NULL, 0);
	mnl_cb_run(buf, nlh->nlmsg_len, 0, 0, link_cb, NULL);
	assert_int_equal(rfs_test_rescans, 1);
	nlh = rfs_test_route(buf, RTM_NEWROUTE, AF_INET, 16, RTN_UNICAST,
			     RT_TABLE_MAIN, 5, NULL, 0);
	mnl_cb_run(buf, nlh->nlmsg_len, 0, 0, link_cb, NULL);
	assert_int_equal(rfs_test_rescans, 1);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 12;
	ifi->ifi_type = ARPHRD_ETHER;
	ifi->ifi_flags = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "rfsA1x");
	memset(&rfs_test_new, 0, sizeof(rfs_test_new));
	mnl_cb_run(buf, nlh->nlmsg_len, 0, 0, link_cb, NULL);
	assert_string_equal(rfs_test_new.name, "rfsA1x");
	assert_int_equal(rfs_test_new.ifindex, 12);
	assert_int_equal(rfs_test_new.type, ARPHRD_ETHER);
	assert_int_equal(rfs_test_new.flags, IFF_UP);
	assert_false(rfs_test_new.default_route);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_default_oifs),
		cmocka_unit_test(rfs_test_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
