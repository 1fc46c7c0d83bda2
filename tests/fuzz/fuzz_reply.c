// SPDX-License-Identifier: GPL-2.0
/*
 * rfsctl's side of the control socket: what rfsd could send back, read by
 * daemon/lib/ctl_client.c (rfs_ctl_recv() and rfs_ctl_result()) from a
 * real socket, then taken the way `rfsctl stats --format prometheus`
 * takes it (rfs_prom_collect() and rfs_prom_format(), rfs_prom.c).
 * Checked: no more replies than lines, a result or a message for each,
 * and an exposition whose every line is a HELP, a TYPE or a sample.
 */
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_client.h"
#include "fuzz.h"
#include "rfs_prom.h"

static int listen_fd = -1;
static char sock_path[108];
static size_t replies;

/* rfs_prom_call_fn: the next reply from the socket answers req. */
static int next_reply(void *ctx, struct json_object *req,
		      struct json_object **result, char *err, size_t len)
{
	struct json_object *reply, *r;
	int e;

	json_object_put(req);
	*result = NULL;
	e = rfs_ctl_recv(ctx, &reply, err, len);
	if (e) {
		RFS_FUZZ_CHECK(e < 0 && err[0], "recv %d without a message", e);
		return e;
	}
	replies++;
	RFS_FUZZ_CHECK(json_object_is_type(reply, json_type_object),
		       "a reply that is not an object");
	err[0] = '\0';
	e = rfs_ctl_result(reply, &r, err, len);
	RFS_FUZZ_CHECK(e <= 0 && (e ? err[0] && !r : r != NULL),
		       "result %d, '%s'", e, err);
	if (!e)
		*result = json_object_get(r);
	json_object_put(reply);
	return e;
}

static void check_exposition(struct json_object *snap)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int e = f ? rfs_prom_format(f, snap) : -ENOMEM;

	if (f && fclose(f))
		e = -ENOMEM;
	if (e) {
		free(buf);
		return;
	}
	RFS_FUZZ_CHECK(!len || buf[len - 1] == '\n', "no newline at the end");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		RFS_FUZZ_CHECK(!strncmp(line, "# HELP rfs_", 11) ||
			       !strncmp(line, "# TYPE rfs_", 11) ||
			       !strncmp(line, "rfs_", 4),
			       "line '%s'", line);
	free(buf);
}

static void setup(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	/* in run.sh's scratch dir, which it removes even after a crash */
	snprintf(sock_path, sizeof(sock_path), "%s/rfs-fuzz-reply.%d",
		 getenv("TMPDIR") ?: "/tmp", (int)getpid());
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock_path);
	unlink(sock_path);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(listen_fd, 4))
		abort();
}

static void teardown(void)
{
	unlink(sock_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[RFS_CTL_ERR_LEN];
	struct json_object *snap, *reply;
	struct rfs_ctl *ctl;
	size_t lines = 0, i;
	int fd;

	if (size > 65536)	/* what the socket buffer takes unread */
		return 0;
	if (listen_fd < 0) {
		setup();
		atexit(teardown);
	}
	if (rfs_ctl_connect(&ctl, sock_path, RFS_CTL_TIMEOUT_MS, err,
			    sizeof(err)))
		abort();
	fd = accept(listen_fd, NULL, NULL);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';

	replies = 0;
	err[0] = '\0';
	if (!rfs_prom_collect(next_reply, ctl, &snap, err, sizeof(err))) {
		check_exposition(snap);
		json_object_put(snap);
	}
	while (!rfs_ctl_recv(ctl, &reply, err, sizeof(err))) {
		replies++;
		json_object_put(reply);
	}
	RFS_FUZZ_CHECK(replies <= lines, "%zu replies from %zu lines",
		       replies, lines);
	rfs_ctl_close(ctl);
	return 0;
}
