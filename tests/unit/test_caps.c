// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the children's system call filters, rfsd_child_seccomp() in
 * daemon/rfsd/caps.c (compiled into this test): a child installs one as
 * rfsd-parse and rfsd-http do, after no_new_privs, then makes one call.
 * What parsing needs (its socket, alarm(), json-c, malloc of a long
 * line, a log line) must work; anything that reaches outside the process
 * must kill it with SIGSYS before the call does anything, under the HTTP
 * server's longer list too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "../../daemon/rfsd/caps.c"

static bool rfs_test_http;	/* the HTTP server's filter */

/* Run fn in a child under the filter; its wait status. */
static int rfs_test_filtered(void (*fn)(int fd), int fd)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    rfsd_child_seccomp(rfs_test_http))
			_exit(100);
		fn(fd);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* What one parse does, end to end, on its socket fd. */
static void rfs_test_parse_like(int fd)
{
	char line[256];
	struct json_object *o;
	char *big, *more;
	ssize_t n;

	n = recv(fd, line, sizeof(line) - 1, 0);
	if (n <= 0)
		_exit(101);
	line[n] = '\0';
	alarm(2);
	o = json_tokener_parse(line);
	if (!o || !json_object_object_get_ex(o, "cmd", NULL))
		_exit(102);
	/* a long line: past the heap, into mmap and mremap */
	big = malloc(1 << 20);
	more = big ? realloc(big, 4 << 20) : NULL;
	if (!more)
		_exit(103);
	memset(more, 1, 4 << 20);
	free(more);
	json_object_put(o);
	alarm(0);
	fprintf(stderr, "filtered child: logging works\n");
	if (send(fd, "ok", 2, MSG_NOSIGNAL) != 2)
		_exit(104);
}

static void rfs_test_allowed(void **state)
{
	static const char req[] = "{\"cmd\":\"status\",\"a\":[1,2.5,\"x\"]}";
	int sv[2], status;
	char buf[8] = "";

	(void)state;
#ifndef RFSD_AUDIT_ARCH
	skip();	/* no filter here: rfsd-parse says so and relies on its uid */
#endif
	/* stdio's first use of a buffered stderr (stdbuf -eL, as
	 * tests/run.sh runs us) fstat()s it; rfsd has logged before it
	 * forks the parser, as we do here */
	fprintf(stderr, "test_caps: a filtered child logs next\n");
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(send(sv[0], req, sizeof(req) - 1, 0), sizeof(req) - 1);
	status = rfs_test_filtered(rfs_test_parse_like, sv[1]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT), 2);
	assert_memory_equal(buf, "ok", 2);
	close(sv[0]);
	close(sv[1]);
}

static void rfs_test_open(int fd)
{
	(void)fd;
	open("/dev/null", O_RDONLY);
}

static void rfs_test_socket(int fd)
{
	(void)fd;
	socket(AF_UNIX, SOCK_STREAM, 0);
}

/* fd: the pid of the test, the child's parent: rfsd's place (signal 0:
 * the filter judges the call, and a broken one must not end the test) */
static void rfs_test_kill(int fd)
{
	kill(fd, 0);
}

static void rfs_test_execve(int fd)
{
	static char *const argv[] = { "true", NULL };

	(void)fd;
	execve("/bin/true", argv, NULL);
}

static void rfs_test_ptrace(int fd)
{
	ptrace(PTRACE_ATTACH, fd, NULL, NULL);
}

static void rfs_test_x32(int fd)
{
	(void)fd;
#ifdef __x86_64__
	syscall(0x40000000 | __NR_getpid);
#else
	raise(SIGSYS);
#endif
}

static void rfs_test_denied(void **state)
{
	static const struct {
		const char *what;
		void (*fn)(int fd);
	} t[] = {
		{ "open", rfs_test_open },
		{ "socket", rfs_test_socket },
		{ "kill", rfs_test_kill },
		{ "execve", rfs_test_execve },
		{ "ptrace", rfs_test_ptrace },
		{ "x32 getpid", rfs_test_x32 },
	};
	size_t i;
	int status;

	(void)state;
#ifndef RFSD_AUDIT_ARCH
	skip();	/* no filter here: rfsd-parse says so and relies on its uid */
#endif
	for (i = 0; i < 2 * sizeof(t) / sizeof(t[0]); i++) {
		size_t k = i % (sizeof(t) / sizeof(t[0]));

		rfs_test_http = k != i;
		status = rfs_test_filtered(t[k].fn, getpid());
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
			fail_msg("%s under the %s filter: wait status %#x, want SIGSYS",
				 t[k].what, rfs_test_http ? "HTTP" : "parser",
				 status);
	}
	rfs_test_http = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_allowed),
		cmocka_unit_test(rfs_test_denied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
