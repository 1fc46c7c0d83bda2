// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of both halves of a control request, request.c,
 * with a command table of their own (no datapath):
 *  - a key given twice is refused, naming the key however it is spelt
 *    (json-c alone would keep the last: {"cmd":"status","cmd":"detach"}
 *    would detach); so is a key the command does not take;
 *  - each argument is checked against its type and range once, and the
 *    handler sees checked values, defaults and what was given;
 *  - rfsd refuses a struct no parser of ours makes, and a reader's change;
 *  - a handler without a reply gets "<cmd>: internal error", the name
 *    taken from the table (make check SANITIZE=1 would show a read of
 *    the freed request).
 *
 * request.c is compiled into this test (it is rfsd's, not the
 * library's); the Makefile rebuilds it when it changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/rfsd/request.c"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *rfs_test_ran;	/* the handler called, if any */
static int rfs_test_errno;		/* the last reply's errno */

static struct json_object *rfs_test_ok(struct rfsd_cmd_ctx *x,
				       struct rfsd_client *c,
				       const struct rfsd_req *r)
{
	rfs_test_ran = r->cmd->name;	/* a static string of the table */
	return rfsd_reply_ok(json_object_new_object());
}

/* What the handler of "args" was handed, in words. */
static char rfs_test_got[256];

static struct json_object *rfs_test_args(struct rfsd_cmd_ctx *x,
					 struct rfsd_client *c,
					 const struct rfsd_req *r)
{
	rfs_test_ran = r->cmd->name;
	snprintf(rfs_test_got, sizeof(rfs_test_got),
		 "%s cpus %u flow_cnt %lld unordered %d limit %lld rx_cpu %lld%s",
		 r->iface, rfs_cpuset_count(&r->cpus), r->flow_cnt,
		 r->allow_unordered, r->limit, r->rx_cpu,
		 r->has & RFSD_ARG(LIMIT) ? " (limit given)" : "");
	return rfsd_reply_ok(json_object_new_object());
}

/* A handler with a bug: it forgot its reply. */
static struct json_object *rfs_test_null(struct rfsd_cmd_ctx *x,
					 struct rfsd_client *c,
					 const struct rfsd_req *r)
{
	rfs_test_ran = "broken";
	return NULL;
}

static const struct rfsd_cmd rfs_test_cmds[] = {
	{ "status", 0, 0, rfs_test_ok, NULL, false },
	{ "detach", RFSD_ARG(IFACE), 0, rfs_test_ok, NULL, true },
	{ "set", RFSD_ARG(KEY) | RFSD_ARG(VALUE) | RFSD_ARG(IFACE), 0,
	  rfs_test_ok, NULL, true },
	{ "broken", 0, 0, rfs_test_null, NULL, false },
	{ "args", RFSD_ARG(IFACE) | RFSD_ARG(CPUS) | RFSD_ARG(FLOW_CNT) |
		  RFSD_ARG(ALLOW_UNORDERED) | RFSD_ARG(LIMIT) |
		  RFSD_ARG(RX_CPU), RFSD_ARG(IFACE), rfs_test_args, NULL, false },
	{ NULL },
};

/* Run line for a peer that may change (deny NULL) or may only read; the
 * reply's "error" (NULL if ok) into err. */
static enum rfsd_cmd_rc rfs_test_run_as(const char *deny, const char *line,
					char *err, size_t len)
{
	struct json_object *reply = NULL, *v;
	enum rfsd_cmd_rc rc;

	rfs_test_ran = NULL;
	rc = rfsd_request_run_as(rfs_test_cmds, NULL, NULL, deny, line,
				 strlen(line), &reply);
	err[0] = '\0';
	if (rc != RFSD_CMD_REPLY) {
		assert_null(reply);
		return rc;
	}
	assert_non_null(reply);
	if (json_object_object_get_ex(reply, "error", &v))
		snprintf(err, len, "%s", json_object_get_string(v));
	if (json_object_object_get_ex(reply, "errno", &v))
		rfs_test_errno = json_object_get_int(v);
	json_object_put(reply);
	return rc;
}

static enum rfsd_cmd_rc rfs_test_run(const char *line, char *err,
				     size_t len)
{
	return rfs_test_run_as(NULL, line, err, len);
}

#define RFS_TEST_DENY	"changes need root or group 'rfs-admin'"

/*
 * A peer that may only read: every command that changes something is
 * refused by name before it runs (and before its arguments are looked
 * at), with EACCES; reads run as for anyone.
 */
static void rfs_test_reader(void **state)
{
	static const struct {
		const char *line;
		const char *err;	/* "" for ok */
		const char *ran;
	} t[] = {
		{ "{\"cmd\":\"detach\",\"iface\":\"eth1\"}",
		  "can't detach 'eth1': permission denied: " RFS_TEST_DENY, NULL },
		{ "{\"cmd\":\"set\",\"key\":\"flow_cnt\",\"iface\":\"eth1\",\"value\":64}",
		  "can't set flow_cnt of 'eth1': permission denied: " RFS_TEST_DENY, NULL },
		{ "{\"cmd\":\"set\",\"key\":\"sock_flow_entries\",\"value\":256}",
		  "can't set sock_flow_entries: permission denied: " RFS_TEST_DENY, NULL },
		{ "{\"cmd\":\"detach\"}",
		  "can't detach: permission denied: " RFS_TEST_DENY, NULL },
		/* bad arguments: still refused for who asks, not for how */
		{ "{\"cmd\":\"detach\",\"iface\":\"eth1\",\"cpus\":[1]}",
		  "can't detach 'eth1': permission denied: " RFS_TEST_DENY, NULL },
		{ "{\"cmd\":\"status\"}", "", "status" },
	};
	char err[512];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_errno = 0;
		assert_int_equal(rfs_test_run_as(RFS_TEST_DENY, t[i].line, err,
						 sizeof(err)), RFSD_CMD_REPLY);
		if (strcmp(err, t[i].err) ||
		    (t[i].ran ? !rfs_test_ran || strcmp(rfs_test_ran, t[i].ran) :
				rfs_test_ran != NULL) ||
		    (t[i].err[0] && rfs_test_errno != EACCES)) {
			print_error("%s\nwant: '%s' (ran %s)\ngot:  '%s' (ran %s, errno %d)\n",
				    t[i].line, t[i].err, t[i].ran ?: "nothing",
				    err, rfs_test_ran ?: "nothing",
				    rfs_test_errno);
			fail();
		}
	}
	/* the same change from a peer that may make it */
	rfs_test_run("{\"cmd\":\"detach\",\"iface\":\"eth1\"}", err,
		     sizeof(err));
	assert_string_equal(err, "");
	assert_string_equal(rfs_test_ran, "detach");
}

static void rfs_test_duplicates(void **state)
{
	static const struct {
		const char *line;
		const char *key;
	} t[] = {
		/* the issue's: status, then detach X */
		{ "{\"cmd\":\"status\",\"cmd\":\"detach\",\"iface\":\"X\"}", "cmd" },
		{ "{\"cmd\":\"detach\",\"iface\":\"X\",\"cmd\":\"status\"}", "cmd" },
		/* spelt with an escape, or in json-c's single quotes */
		{ "{\"cmd\":\"status\",\"\\u0063md\":\"detach\"}", "cmd" },
		{ "{\"c\\u006Dd\":\"status\",\"cmd\":\"detach\"}", "cmd" },
		{ "{'cmd':\"status\",\"cmd\":\"detach\"}", "cmd" },
		{ "{'\\u0063md':\"status\",\"cmd\":\"detach\"}", "cmd" },
		{ "{\"cmd\":\"detach\",\"iface\":\"a\",\"iface\":\"b\"}", "iface" },
		{ " { \"cmd\" : \"detach\" , \"iface\" :\"a\",\"iface\"\t:\"a\" } ", "iface" },
		/* json-c cuts keys at an escaped NUL: "a\u0000b" is "a" */
		{ "{\"cmd\":\"status\",\"a\\u0000b\":1,\"a\":2}", "a" },
		/* after a nested value */
		{ "{\"cmd\":\"status\",\"a\":{\"b\":[1,{\"c\":2}]},\"a\":1}", "a" },
		{ "{\"cmd\":\"status\",\"\":1,\"\":2}", "" },
		/* after each kind of value, spaces anywhere */
		{ "{\"cmd\":\"status\",\"a\":-1.5e3 ,\"b\":true,\"c\":null,\"d\":\"}\",\"a\" : 2 }", "a" },
		{ "\t{ \"b\":[] , \"cmd\":\"status\",\r\"b\":{}}", "b" },
	};
	char err[512], want[128];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		assert_int_equal(rfs_test_run(t[i].line, err, sizeof(err)),
				 RFSD_CMD_REPLY);
		snprintf(want, sizeof(want), "bad request: duplicate key '%s'",
			 t[i].key);
		if (strcmp(err, want) || rfs_test_ran) {
			print_error("%s\nwant: %s\ngot:  %s (ran %s)\n", t[i].line,
				    want, err, rfs_test_ran ?: "nothing");
			fail();
		}
	}
}

/* What looks like a key twice but is not. */
static void rfs_test_not_duplicates(void **state)
{
	static const struct {
		const char *line;
		const char *err;	/* "" for ok */
	} t[] = {
		{ "{\"cmd\":\"status\"}", "" },
		{ "{\"cmd\":\"detach\",\"iface\":\"cmd\"}", "" },
		/* a value spelt like a key */
		{ "{\"cmd\":\"detach\",\"iface\":\"iface\"}", "" },
		/* quotes, commas and braces inside strings */
		{ "{\"cmd\":\"detach\",\"iface\":\"x\\\",\\\"cmd\\\":{'\"}", "" },
		{ "{\"cmd\":\"detach\",\"iface\":\"a,'cmd':1\"}", "" },
		/* the same key in a nested object is not one of ours */
		{ "{\"cmd\":\"status\",\"x\":{\"k\":1,\"k\":2}}",
		  "bad request: 'status' takes no argument 'x'" },
		{ "{\"cmd\":\"status\",\"x\":[{\"cmd\":1},{\"cmd\":2}]}",
		  "bad request: 'status' takes no argument 'x'" },
		{ "{\"cmd\":\"status\",\"Cmd\":1}",
		  "bad request: 'status' takes no argument 'Cmd'" },
	};
	char err[512];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_run(t[i].line, err, sizeof(err));
		if (strcmp(err, t[i].err)) {
			print_error("%s\nwant: '%s'\ngot:  '%s'\n", t[i].line,
				    t[i].err, err);
			fail();
		}
	}
}

static void rfs_test_unknown(void **state)
{
	static const struct {
		const char *line;
		const char *err;
	} t[] = {
		{ "{\"cmd\":\"status\",\"bogus\":1}",
		  "bad request: 'status' takes no argument 'bogus'" },
		{ "{\"cmd\":\"detach\",\"iface\":\"x\",\"cpus\":[1]}",
		  "bad request: 'detach' takes no argument 'cpus'" },
		{ "{\"cmd\":\"stat\"}", "unknown command 'stat'" },
		{ "{\"cmd\":1}", "bad request: 'cmd' must be a string" },
		{ "{\"iface\":\"x\"}", "bad request: missing 'cmd'" },
		{ "[\"cmd\",\"status\"]", "bad request: not a JSON object" },
		{ "{\"cmd\":\"status\"} {}",
		  "bad request: malformed JSON: unexpected character" },
		{ "  ", "bad request: empty line" },
	};
	char err[512];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_run(t[i].line, err, sizeof(err));
		if (strcmp(err, t[i].err) || rfs_test_ran) {
			print_error("%s\nwant: %s\ngot:  %s\n", t[i].line,
				    t[i].err, err);
			fail();
		}
	}
}

static void rfs_test_dispatch(void **state)
{
	char err[512];

	assert_int_equal(rfs_test_run("{\"cmd\":\"detach\",\"iface\":\"x\"}",
				      err, sizeof(err)), RFSD_CMD_REPLY);
	assert_string_equal(err, "");
	assert_string_equal(rfs_test_ran, "detach");
	assert_int_equal(rfs_test_run("{\"cmd\":\"status\",\"cmd\":\"status\"}",
				      err, sizeof(err)), RFSD_CMD_REPLY);
	assert_string_equal(err, "bad request: duplicate key 'cmd'");
}

/* A handler without a reply gets "<cmd>: internal error", the
 * name taken from the table, not from the freed request. */
static void rfs_test_internal_error(void **state)
{
	char err[512];

	assert_int_equal(rfs_test_run("{\"cmd\":\"broken\"}", err,
				      sizeof(err)), RFSD_CMD_REPLY);
	assert_string_equal(rfs_test_ran, "broken");
	assert_string_equal(err, "broken: internal error");
}

/* Each argument is checked once, against its type and range in the
 * table, before any handler runs; what is absent gets its default. */
static void rfs_test_arg_checks(void **state)
{
	static const struct {
		const char *line;
		const char *err;	/* "" for ok: then got is what ran */
		const char *got;
	} t[] = {
		{ "{\"cmd\":\"args\",\"iface\":\"eth1\"}", "",
		  "eth1 cpus 0 flow_cnt 0 unordered 0 limit 20 rx_cpu -1" },
		{ "{\"cmd\":\"args\",\"iface\":\"eth1\",\"cpus\":[0,3,3],\"flow_cnt\":64,\"allow_unordered\":true,\"limit\":5,\"rx_cpu\":1}",
		  "", "eth1 cpus 2 flow_cnt 64 unordered 1 limit 5 rx_cpu 1 (limit given)" },
		/* JSON null is absent */
		{ "{\"cmd\":\"args\",\"iface\":\"eth1\",\"limit\":null}", "",
		  "eth1 cpus 0 flow_cnt 0 unordered 0 limit 20 rx_cpu -1" },
		{ "{\"cmd\":\"args\"}", "bad request: missing 'iface'", NULL },
		{ "{\"cmd\":\"args\",\"iface\":null}",
		  "bad request: missing 'iface'", NULL },
		{ "{\"cmd\":\"args\",\"iface\":7}",
		  "bad request: 'iface' must be a string", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"\"}",
		  "bad request: 'iface' must be an interface name (1..15 characters)", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"0123456789abcdef\"}",
		  "bad request: 'iface' must be an interface name (1..15 characters)", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"flow_cnt\":0}",
		  "bad request: 'flow_cnt' must be 1..4294967295", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"flow_cnt\":99999999999999999999}",
		  "bad request: 'flow_cnt' must be 1..4294967295", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"flow_cnt\":1.5}",
		  "bad request: 'flow_cnt' must be an integer", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"allow_unordered\":1}",
		  "bad request: 'allow_unordered' must be true or false", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"cpus\":[]}",
		  "bad request: 'cpus' is empty", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"cpus\":\"0-3\"}",
		  "bad request: 'cpus' must be an array of CPU numbers", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"cpus\":[1,-1]}",
		  "bad request: 'cpus' entries must be integers 0..255", NULL },
		{ "{\"cmd\":\"args\",\"iface\":\"a\",\"rx_cpu\":1024}",
		  "bad request: 'rx_cpu' must be 0..255", NULL },
	};
	char err[512];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_got[0] = '\0';
		rfs_test_run(t[i].line, err, sizeof(err));
		if (strcmp(err, t[i].err) ||
		    (t[i].got && strcmp(rfs_test_got, t[i].got)) ||
		    (!t[i].got && rfs_test_ran)) {
			print_error("%s\nwant: '%s' (%s)\ngot:  '%s' (%s)\n",
				    t[i].line, t[i].err, t[i].got ?: "nothing ran",
				    err, rfs_test_got);
			fail();
		}
	}
}

/* rfsd trusts no value the parser hands over: one out of its range, or
 * an argument the command does not take, is the parser's broken
 * protocol, and nothing runs. */
static void rfs_test_broken_parser(void **state)
{
	static const char line[] =
		"{\"cmd\":\"args\",\"iface\":\"eth1\",\"rx_cpu\":3}";
	struct rfsd_preq *p = malloc(sizeof(*p));
	struct json_object *reply, *v;
	unsigned int i;

	assert_non_null(p);
	for (i = 0; i < 4; i++) {
		rfsd_request_parse(rfs_test_cmds, false, line, strlen(line), p);
		assert_int_equal(p->err, 0);
		if (i == 0)
			p->arg[RFSD_ARG_RX_CPU].i = RFS_MAX_CPUS;
		else if (i == 1)
			p->has |= RFSD_ARG(KEY);
		else if (i == 2)
			p->has &= ~RFSD_ARG(IFACE);
		else
			p->data[p->arg[RFSD_ARG_IFACE].off +
				p->arg[RFSD_ARG_IFACE].len] = 'x';
		rfs_test_ran = NULL;
		assert_int_equal(rfsd_request_exec(rfs_test_cmds, NULL, NULL, NULL,
						   p, rfsd_preq_size(p), &reply),
				 RFSD_CMD_REPLY);
		assert_null(rfs_test_ran);
		assert_true(json_object_object_get_ex(reply, "errno", &v));
		assert_int_equal(json_object_get_int(v), EPROTO);
		json_object_put(reply);
	}
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_duplicates),
		cmocka_unit_test(rfs_test_not_duplicates),
		cmocka_unit_test(rfs_test_unknown),
		cmocka_unit_test(rfs_test_dispatch),
		cmocka_unit_test(rfs_test_reader),
		cmocka_unit_test(rfs_test_internal_error),
		cmocka_unit_test(rfs_test_arg_checks),
		cmocka_unit_test(rfs_test_broken_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
