// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/rfsd/server.c as an unprivileged peer meets it: a real control
 * socket, a real connection and the real parser process, with everything
 * in between chosen by the fuzzer; the loop and the clock are
 * fuzz_loop.h's.
 *
 * The input is a byte code, one connection per input:
 *	first byte   the peer's role (admin, read, none)
 *	0x00..0x7f   send the next op+1 bytes of the input
 *	0x80..0x9f   send ((op & 31) + 1) * 4096 copies of the next byte
 *	             (a space for '\n': a long line, not many)
 *	0xa0..0xaf   the clock moves (op & 15) seconds on, then a tick
 *	0xb0         the peer stops sending (shutdown SHUT_WR)
 *	0xb1         the peer reads what it was sent
 *	0xb2         the job ends: its owner gets its reply, waiters run
 *	others       send the op byte itself
 * after each op the loop runs until nothing is ready.  At the end the
 * peer closes.  Checks: every reply is one well-formed line, never more
 * replies than request lines plus one, and a peer that has gone is
 * dropped (its watch removed, its memory freed).
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "commands.h"

static enum rfsd_cmd_rc start_job(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  const struct rfsd_req *r,
				  struct json_object **reply);
#define FUZZ_FLOWS_START start_job

#include "fuzz_cmds.h"
#include "fuzz_loop.h"
#include "server.h"

#define MAX_LINES	16

static struct rfsd_server *srv;
static struct rfsd_cmd_ctx ctx;
static enum rfsd_role role;
static struct rfsd_client *job_owner;
static bool kick_due;
static char sock_path[108];

/* ---- what server.c calls outside itself ---- */

void rfsd_groups_set(struct rfsd_groups *g, const char *read,
		     const char *admin)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->read_name, sizeof(g->read_name), "%s", read ?: "rfs");
	snprintf(g->admin_name, sizeof(g->admin_name), "%s",
		 admin ?: RFSD_ADMIN_GROUP);
	snprintf(g->deny, sizeof(g->deny), "changes need group %s",
		 g->admin_name);
}

enum rfsd_role rfsd_peer_role(int fd, const struct ucred *cr,
			      const struct rfsd_groups *g)
{
	return role;
}

/* The parser keeps root and no filter here: the fuzzer's child has
 * nothing to guard, and the sanitizers' calls would be killed. */
int rfsd_caps_drop_all(uid_t uid, gid_t gid)
{
	return 0;
}

int rfsd_child_seccomp(bool http)
{
	return 0;
}

void rfsd_sampler_client_gone(struct rfsd_sampler *s, struct rfsd_client *c)
{
	RFS_FUZZ_CHECK(c == job_owner, "a client that owns no job left one");
	job_owner = NULL;
	kick_due = true;
}

/* flows, as the sampler runs it: one job at a time, the others wait */
static enum rfsd_cmd_rc start_job(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  const struct rfsd_req *r,
				  struct json_object **reply)
{
	if (job_owner)
		return RFSD_CMD_WAIT;
	json_object_put(run_any(x, c, r));
	job_owner = c;
	return RFSD_CMD_STARTED;
}

/* ---- the driver ---- */

static void cleanup(void)
{
	rfsd_server_close(srv);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rfsd_dispatch d = { cmds, &ctx };
	char err[256];

	/* in run.sh's scratch dir, which it removes even after a crash */
	snprintf(sock_path, sizeof(sock_path), "%s/rfs-fuzz-control.%d",
		 getenv("TMPDIR") ?: "/tmp", getpid());
	if (rfsd_server_bind(&srv, NULL, &d, sock_path, NULL, NULL, err,
			     sizeof(err)) ||
	    rfsd_server_listen(srv, err, sizeof(err))) {
		fprintf(stderr, "fuzz_control: %s\n", err);
		exit(1);
	}
	atexit(cleanup);
	return 0;
}

/* The loop, and the requests a job's end let run. */
static void run_loop(void)
{
	do {
		if (kick_due) {
			kick_due = false;
			rfsd_server_kick(srv);
		}
		fuzz_loop_run();
	} while (kick_due);
}

struct peer {
	int fd;
	char buf[1 << 18];
	size_t len;		/* part of a reply line */
	unsigned replies, lines;
	bool closed;		/* rfsd closed its end */
	bool gone;		/* ... and sending failed */
};

static void peer_read(struct peer *p)
{
	while (!p->closed) {
		ssize_t n = recv(p->fd, p->buf + p->len,
				 sizeof(p->buf) - 1 - p->len, MSG_DONTWAIT);
		char *nl;

		if (n <= 0) {
			p->closed = !n || (errno != EAGAIN && errno != EINTR);
			return;
		}
		p->len += n;
		while ((nl = memchr(p->buf, '\n', p->len))) {
			struct json_object *r;

			*nl = '\0';
			r = json_tokener_parse(p->buf);
			check_reply(r, p->buf);
			p->replies++;
			json_object_put(r);
			p->len -= nl + 1 - p->buf;
			memmove(p->buf, nl + 1, p->len);
		}
		RFS_FUZZ_CHECK(p->len < sizeof(p->buf) - 1,
			       "a reply line longer than %zu", sizeof(p->buf));
	}
}

/* Every line is a round trip to the parser process: past MAX_LINES an
 * input's '\n's go as spaces, so that each input stays quick. */
static void peer_send(struct peer *p, uint8_t *b, size_t n)
{
	size_t i;

	if (p->gone)
		return;
	for (i = 0; i < n; i++) {
		if (b[i] == '\n' && p->lines == MAX_LINES)
			b[i] = ' ';
		p->lines += b[i] == '\n';
	}
	while (n) {
		ssize_t k = send(p->fd, b, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		struct pollfd pf = { .fd = p->fd, .events = POLLOUT };
		int e = errno;

		if (k < 0 && e == EINTR)
			continue;
		if (k < 0 && e != EAGAIN) {
			p->gone = true;	/* rfsd closed: nothing more to send */
			return;
		}
		if (k < 0) {
			/* rfsd stopped reading: let it run */
			run_loop();
			peer_read(p);
			if (poll(&pf, 1, 0) <= 0)
				return;	/* nobody reads: give up */
			continue;
		}
		b += k;
		n -= k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static uint8_t bytes[32 * 4096];
	const uint8_t *end = data + size;
	struct peer p = { .fd = -1 };
	bool shut = false;
	int i;

	if (!size)
		return 0;
	role = data[0] % 3 == 0 ? RFSD_ROLE_ADMIN :
	       data[0] % 3 == 1 ? RFSD_ROLE_READ : RFSD_ROLE_NONE;
	data++;
	p.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memcpy((char *)sa.sun_path, sock_path, strlen(sock_path) + 1);
	fuzz_connect(p.fd, &sa, sizeof(sa));
	run_loop();
	while (data < end) {
		uint8_t op = *data++;
		size_t n;

		if (op < 0x80) {
			n = (size_t)(end - data) < op + 1u ? (size_t)(end - data) : op + 1u;
			memcpy(bytes, data, n);
			if (!shut)
				peer_send(&p, bytes, n);
			data += n;
		} else if (op < 0xa0) {
			if (data == end)
				break;
			n = ((op & 31) + 1) * 4096;
			memset(bytes, *data == '\n' ? ' ' : *data, n);
			data++;
			if (!shut)
				peer_send(&p, bytes, n);
		} else if (op < 0xb0) {
			clock_skew_ns += (op & 15) * 1000000000LL;
			rfsd_server_tick(srv, time(NULL) + clock_skew_ns / 1000000000LL);
		} else if (op == 0xb0) {
			shutdown(p.fd, SHUT_WR);
			shut = true;
		} else if (op == 0xb1) {
			peer_read(&p);
		} else if (op == 0xb2) {
			if (job_owner) {
				struct rfsd_client *c = job_owner;

				job_owner = NULL;
				rfsd_server_reply(srv, c, rfsd_reply_ok(json_object_new_object()));
				kick_due = true;
			}
		} else if (!shut) {
			peer_send(&p, &op, 1);
		}
		run_loop();
	}
	peer_read(&p);
	/* one a line, and one for a last line without its '\n' or a
	 * refusal that ends the connection */
	RFS_FUZZ_CHECK(p.replies <= p.lines + 1, "%u replies to %u lines",
		       p.replies, p.lines);
	close(p.fd);
	run_loop();
	/* watches[0] is the listening socket */
	for (i = 1; i < FUZZ_WATCHES; i++)
		RFS_FUZZ_CHECK(!watches[i], "a peer that left is still served");
	return 0;
}
