// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/rfsd/request.c's rfsd_request_exec(): rfsd's side of the parser
 * process, fed what a parser gone bad could send.  The input is a request
 * line, a NUL, then edits (two bytes of offset, one byte to XOR there; a
 * 0 cuts the struct at that offset) made to the struct the real parser
 * makes of the line, so the fuzzer starts from well-formed structs and
 * breaks them a field at a time.  Every struct gets one well-formed reply,
 * a refusal of a broken one among them, and nothing is read outside it.
 */
#include "fuzz_cmds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size), *m;
	size_t llen = nul ? (size_t)(nul - data) : size, len, off;
	const char *deny = llen && (data[0] & 1) ? "changes need root" : NULL;
	struct rfsd_preq *p = malloc(sizeof(*p));
	char *line = rfs_fuzz_str(data, llen);
	struct json_object *reply;
	enum rfsd_cmd_rc rc;
	uint8_t *raw;

	if (!p)
		abort();
	rfsd_request_parse(cmds, deny != NULL, line, llen, p);
	len = rfsd_preq_size(p);
	raw = (uint8_t *)p;
	for (m = nul ? nul + 1 : data + size; len && m + 3 <= data + size;
	     m += 3) {
		off = (size_t)(m[0] | m[1] << 8) % len;
		if (m[2])
			raw[off] ^= m[2];
		else
			len = off;
	}
	/* what was never received is not there to read */
	p = realloc(p, len ? len : 1);
	rc = rfsd_request_exec(cmds, NULL, NULL, deny, p, len, &reply);
	RFS_FUZZ_CHECK(rc == RFSD_CMD_REPLY, "rc %d", rc);
	check_reply(reply, line);
	json_object_put(reply);
	free(p);
	free(line);
	return 0;
}
