// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the readers of text from outside: daemon/lib/parse.c's
 * rfs_text_u64() and rfs_mask_text_any() (the kernel's /proc and sysfs
 * files) and ctl_client.c's rfs_ctl_parse_reply() and rfs_ctl_result()
 * (one line of rfsd's).
 * tests/fuzz/fuzz_proc.c and fuzz_reply.c run them on anything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "ctl_client.h"
#include "parse.h"

static int text_u64(const char *text, const char *key, __u64 *v)
{
	return rfs_text_u64(text, strlen(text), key, v);
}

static void rfs_test_text_u64(void **state)
{
	static const char timer_list[] =
		"  .idle_jiffies   : 4298221640\n"
		"jiffies: 4298221643\n";
	__u64 v = 0;

	assert_int_equal(text_u64("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n",
				  "CONFIG_HZ=", &v), 0);
	assert_true(v == 250);
	assert_int_equal(text_u64(timer_list, "jiffies:", &v), 0);
	assert_true(v == 4298221643ull);
	assert_int_equal(text_u64("MemTotal:       24683784 kB\n", "MemTotal:",
				  &v), 0);
	assert_true(v == 24683784);
	/* a sysfs file that is one number; no newline at the end */
	assert_int_equal(text_u64("20000", "", &v), 0);
	assert_true(v == 20000);
	assert_int_equal(text_u64("18446744073709551615\n", "", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(text_u64("18446744073709551616\n", "", &v), -ERANGE);
	/* the first line with the key decides; sscanf took all of these */
	assert_int_equal(text_u64("CONFIG_HZ=25o\nCONFIG_HZ=250\n", "CONFIG_HZ=",
				  &v), -EINVAL);
	assert_int_equal(text_u64("MemTotal: -5 kB\n", "MemTotal:", &v), -EINVAL);
	assert_int_equal(text_u64("MemTotal: +5 kB\n", "MemTotal:", &v), -EINVAL);
	assert_int_equal(text_u64("MemTotal:\n5\n", "MemTotal:", &v), -EINVAL);
	assert_int_equal(text_u64("MemFree: 5 kB\n", "MemTotal:", &v), -ENOENT);
	assert_int_equal(text_u64("", "", &v), -ENOENT);
	/* a NUL is no blank: the bytes after it are not ignored */
	assert_int_equal(rfs_text_u64("5\0" "7", 3, "", &v), -EINVAL);
}

static void rfs_test_mask(void **state)
{
	assert_false(rfs_mask_text_any("00000000,00000000\n", 18));
	assert_true(rfs_mask_text_any("00000000,00000001\n", 18));
	assert_false(rfs_mask_text_any("", 0));
	/* unreadable text is taken for a CPU: RPS may be on */
	assert_true(rfs_mask_text_any("0\0", 2));
	assert_true(rfs_mask_text_any("x", 1));
}

static int reply(const char *line, size_t n, char *err)
{
	struct json_object *r = NULL;
	int e;

	err[0] = '\0';
	e = rfs_ctl_parse_reply(line, n, &r, err, RFS_CTL_ERR_LEN);
	assert_true(e ? !r && err[0] : r && !err[0]);
	json_object_put(r);
	return e;
}

static void rfs_test_reply(void **state)
{
	char err[RFS_CTL_ERR_LEN];

	assert_int_equal(reply("{\"ok\": true, \"result\": {}} \t", 28, err), 0);
	assert_int_equal(reply("[1]", 3, err), -EPROTO);
	assert_string_equal(err, "can't parse reply from rfsd: not a JSON object");
	assert_int_equal(reply("{} {}", 5, err), -EPROTO);
	assert_string_equal(err, "can't parse reply from rfsd: data after the JSON object");
	assert_int_equal(reply("{\"ok\": tr", 9, err), -EPROTO);
	assert_string_equal(err, "can't parse reply from rfsd: incomplete JSON");
	assert_int_equal(reply("", 0, err), -EPROTO);
	/* the line is all n bytes: what follows a NUL is data too */
	assert_int_equal(reply("{}\0{}", 5, err), -EPROTO);
}

static int result(const char *line, char *err)
{
	struct json_object *reply = json_tokener_parse(line), *r = NULL;
	int e;

	assert_non_null(reply);
	err[0] = '\0';
	e = rfs_ctl_result(reply, &r, err, RFS_CTL_ERR_LEN);
	assert_true(e ? !r && err[0] : r && !err[0]);
	json_object_put(reply);
	return e;
}

static void rfs_test_result(void **state)
{
	char err[RFS_CTL_ERR_LEN];

	assert_int_equal(result("{\"ok\": true, \"result\": []}", err), 0);
	assert_int_equal(result("{\"ok\": false, \"error\": \"attach veth9: no such interface\", \"errno\": 19}",
				err), -ENODEV);
	assert_string_equal(err, "attach veth9: no such interface");
	/* fuzz_reply: an empty message said nothing at all */
	assert_int_equal(result("{\"ok\": false, \"error\": \"\", \"errno\": 32}",
				err), -EPIPE);
	assert_string_equal(err, "rfsd refused the request: Broken pipe");
	assert_int_equal(result("{\"ok\": false, \"errno\": -3}", err), -EIO);
	assert_int_equal(result("{\"ok\": true}", err), -EPROTO);
	assert_int_equal(result("{\"ok\": 1}", err), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_text_u64),
		cmocka_unit_test(rfs_test_mask),
		cmocka_unit_test(rfs_test_reply),
		cmocka_unit_test(rfs_test_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
