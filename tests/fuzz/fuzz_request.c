// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/rfsd/request.c: both halves of a request, parse and run, on any
 * line, with the table of fuzz_cmds.h.  Every line gets exactly one
 * well-formed reply, and nothing leaks.
 */
#include "fuzz_cmds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = rfs_fuzz_str(data, size);
	struct json_object *reply;
	enum rfsd_cmd_rc rc;

	/* the first byte also picks the peer: one that may change, or a
	 * reader refused every change */
	rc = rfsd_request_run_as(cmds, NULL, NULL,
				 size && (data[0] & 1) ? "changes need root" :
				 NULL, line, size, &reply);
	RFS_FUZZ_CHECK(rc == RFSD_CMD_REPLY, "rc %d", rc);
	check_reply(reply, line);
	json_object_put(reply);
	free(line);
	return 0;
}
