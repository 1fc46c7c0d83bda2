// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/rfsd/metrics.c as a scraper, or anyone who reaches its port,
 * meets it: the real libmicrohttpd daemon on a loopback port with the
 * HTTP process's handler, started once, and the input sent to it as what
 * a TCP peer says.  Both sides run in this process: the HTTP one is not
 * forked, and rfsd's answers its asks for a snapshot from a fake command
 * table that answers status and stats as rfsd would.  The loop and the
 * clock are fuzz_loop.h's: the clock moves on for fresh snapshots and
 * the per-connection deadline.
 *
 * Input: a flags byte, then the bytes the peer sends.
 *	bits 0-2  chunk size: 0 all at once, else 1 << (n + 1) bytes a send
 *	bit 3     a fresh snapshot (the last one is a second old)
 *	bit 4     the deadline passes after the first chunk
 *	bit 5     the peer stops sending at the end (shutdown SHUT_WR)
 * Checks: whatever comes back is HTTP responses, each with a status
 * line, up to an error (the connection's end); a 200 to /metrics carries
 * only exposition lines; a GET that announces a body is refused; a peer
 * that closes is forgotten (its connection freed, seen by LeakSanitizer).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_loop.h"
#include "server.h"

static struct rfsd_metrics *metrics;
static struct rfsd_cmd_ctx ctx;
static struct sockaddr_in addr = { .sin_family = AF_INET };
static struct rfsd_loop loop;
static int http_fd = -1;	/* the HTTP side's end of its socket */

/* ---- the HTTP process, run here: its main sets it up and returns ---- */

int rfsd_loop_run(struct rfsd_loop *l)
{
	return 0;
}

int rfsd_child_start(struct rfsd_child *c)
{
	struct rfsd_child in = *c;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	c->fd = sv[0];
	c->pid = getpid();
	in.fd = http_fd = sv[1];
	in.keep = dup(c->keep);	/* MHD closes its own */
	in.main(&in);
	return 0;
}

void rfsd_child_stop(struct rfsd_child *c)
{
	close(c->fd);
	c->fd = -1;
}

bool rfsd_child_tick(struct rfsd_child *c)
{
	return false;
}

/* The HTTP side asks for a snapshot and rfsd answers, before a request
 * does: an ask from within one would wait for an answer that can't come
 * until it returns. */
static void prime(void)
{
	send(http_fd, "?", 1, MSG_NOSIGNAL);
	fuzz_loop_run();
}

/* the snapshot: what rfsd's status and stats say of one interface */
static struct json_object *run_status(struct rfsd_cmd_ctx *x,
				      struct rfsd_client *c,
				      const struct rfsd_req *r)
{
	return rfsd_reply_ok(json_tokener_parse(
		"{\"version\":\"0.1.0\",\"sock_flow_entries\":32768,\"nr_cpus\":2,"
		"\"interfaces\":[{\"name\":\"veth0\",\"mode\":\"native\","
		"\"rx_queues\":1,\"flow_cnt\":4096,\"cpus\":[0,1],"
		"\"active_cpus\":[1],\"held_flows\":1,\"leaving\":"
		"[{\"cpu\":0,\"waited_ms\":500,\"flows\":1}]},{\"name\":\"gone0\"}]}"));
}

static struct json_object *run_stats(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     const struct rfsd_req *r)
{
	if (!r->iface)
		return rfsd_reply_ok(json_tokener_parse(
			"{\"interface\":null,\"total\":{},\"per_cpu\":[{\"cpu\":0,"
			"\"seen\":10,\"dequeued\":5,\"backlog\":0},{\"cpu\":1,"
			"\"seen\":20,\"kthread_wait_ns\":1234567890123}]}"));
	if (strcmp(r->iface, "veth0"))
		return rfsd_reply_err(ENOENT, "no interface '%s'", r->iface);
	return rfsd_reply_ok(json_tokener_parse(
		"{\"interface\":\"veth0\",\"total\":{},\"per_cpu\":"
		"[{\"cpu\":0,\"seen\":10,\"steered\":9,\"held\":1}]}"));
}

static const struct rfsd_cmd cmds[] = {
	{ "status", 0, 0, run_status, NULL, false },
	{ "stats", RFSD_ARG(IFACE), 0, run_stats, NULL, false },
	{ NULL },
};

static const struct rfsd_dispatch dispatch = { cmds, &ctx };

/* ---- the driver ---- */

static void cleanup(void)
{
	rfsd_metrics_close(metrics);
	fuzz_loop_run();	/* the HTTP side sees its end and stops */
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256], where[32];
	int port, e = -1;

	/* a free port of the dynamic range, this process's first guess */
	for (port = 49152 + getpid() % 8192; e && port < 65536; port++) {
		snprintf(where, sizeof(where), "127.0.0.1:%d", port);
		e = rfsd_metrics_open(&metrics, &loop, &dispatch, where, -1,
				      err, sizeof(err));
	}
	if (e) {
		fprintf(stderr, "fuzz_metrics: %s\n", err);
		exit(1);
	}
	addr.sin_port = htons(port - 1);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	atexit(cleanup);
	return 0;
}

static void peer_read(int fd, char *buf, size_t cap, size_t *len)
{
	ssize_t n;

	while (*len < cap &&
	       (n = recv(fd, buf + *len, cap - *len, MSG_DONTWAIT)) > 0)
		*len += n;
}

/* A GET or HEAD whose headers announce a body.  MHD takes a bare '\n'
 * for a line's end, so an empty line ends the headers either way. */
static bool get_with_body(const char *req)
{
	const char *end = strstr(req, "\n\n"), *crlf = strstr(req, "\n\r\n");
	const char *cl = strcasestr(req, "\nContent-Length:");
	const char *te = strcasestr(req, "\nTransfer-Encoding:");
	const char *p;

	if (!end || (crlf && crlf < end))
		end = crlf;
	if (!end || (strncmp(req, "GET ", 4) && strncmp(req, "HEAD ", 5)))
		return false;
	/* A folded header line (obsolete, RFC 7230 3.2.4) or one that is
	 * not "name:" (a token, then a colon): what MHD makes of the rest
	 * is its own reading, so claim nothing. */
	for (p = req; (p = strchr(p, '\n')) && p < end; p++) {
		size_t name = strcspn(p + 1, ":\r\n \t");

		if (!name || p[1 + name] != ':')
			return false;
	}
	if (te && te < end)
		return true;
	if (!cl || cl > end)
		return false;
	for (cl += 16; *cl == ' ' || *cl == '\t'; cl++)
		;
	return *cl >= '0' && *cl <= '9' && strtoull(cl, NULL, 10);
}

/* Each response in buf: a status line, headers, and (when it has a
 * Content-Length) that much body; a 200 to /metrics is an exposition,
 * and a GET with a body is refused. */
static void check_responses(const char *req, char *buf, size_t len)
{
	bool scrape = strstr(req, "/metrics") != NULL;
	bool refuse = get_with_body(req);
	char *p = buf, *end = buf + len;

	while (p < end) {
		char *hdr_end = memmem(p, end - p, "\r\n\r\n", 4), *cl, *line;
		unsigned long body = 0;
		int code;

		RFS_FUZZ_CHECK(end - p >= 12 && !memcmp(p, "HTTP/1.", 7) &&
			       sscanf(p + 9, "%3d", &code) == 1 &&
			       code >= 100 && code < 600,
			       "not a status line: '%.40s'", p);
		RFS_FUZZ_CHECK(code >= 400 || code < 200 || !refuse,
			       "a GET with a body got %d", code);
		if (code >= 200)
			refuse = false;	/* the next request's is another */
		/* an error closes the connection; MHD 0.9.75 sends the head
		 * of its own refusal of a bad Content-Length twice */
		if (!hdr_end || code >= 400)
			return;		/* cut: a deadline, or MHD gave up */
		*hdr_end = '\0';
		cl = strcasestr(p, "\r\nContent-Length: ");
		if (!cl)
			return;		/* chunked or to the end: the last */
		body = strtoul(cl + 18, NULL, 10);
		p = hdr_end + 4;
		if ((size_t)(end - p) < body)
			return;		/* a HEAD's, or cut */
		if (code == 200 && scrape && body && p[body - 1] == '\n' &&
		    strncmp(p, "rfsd:", 5)) {
			char save = p[body - 1], *s = p, *nl;

			p[body - 1] = '\0';
			for (line = s; line; line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				RFS_FUZZ_CHECK(!strncmp(line, "# HELP rfs_", 11) ||
					       !strncmp(line, "# TYPE rfs_", 11) ||
					       !strncmp(line, "rfs_", 4),
					       "line '%.60s'", line);
			}
			p[body - 1] = save;
		}
		p += body;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct linger no_linger = { .l_onoff = 1, .l_linger = 0 };
	static char buf[1 << 18];
	uint8_t flags;
	size_t chunk, off, got = 0;
	char *req;
	int fd;

	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	chunk = flags & 7 ? 2u << (flags & 7) : size;
	if (flags & 8)
		clock_skew_ns += 1000000000LL;
	prime();
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* closed with a reset: thousands of inputs a second would otherwise
	 * leave as many ports in TIME_WAIT and run out of them */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &no_linger,
			   sizeof(no_linger));
	fuzz_connect(fd, &addr, sizeof(addr));
	fuzz_loop_run();
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		if (send(fd, data + off, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			break;
		fuzz_loop_run();
		peer_read(fd, buf, sizeof(buf) - 1, &got);
		if (!off && (flags & 16)) {
			clock_skew_ns += (RFSD_METRICS_DEADLINE + 1) * 1000000000LL;
			prime();
		}
	}
	if (flags & 32) {
		shutdown(fd, SHUT_WR);
		fuzz_loop_run();
	}
	peer_read(fd, buf, sizeof(buf) - 1, &got);
	buf[got] = '\0';
	req = rfs_fuzz_str(data, size);
	check_responses(req, buf, got);
	free(req);
	close(fd);
	fuzz_loop_run();
	return 0;
}
