// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static const char *log_prog = "rfs";
static bool log_verbose, log_journal;

void rfs_log_init(const char *prog, bool verbose)
{
	log_prog = prog;
	log_verbose = verbose;
	log_journal = getenv("INVOCATION_ID") != NULL;
}

void rfs_vlog(enum rfs_log_level lvl, const char *fmt, va_list ap)
{
	static const char *const journal_prio[] = { "<4>", "<6>", "<7>" };

	if (lvl == RFS_LOG_DEBUG && !log_verbose)
		return;
	if (log_journal)
		fputs(journal_prio[lvl], stderr);
	else
		fprintf(stderr, "%s: ", log_prog);
	vfprintf(stderr, fmt, ap);
}

void rfs_log(enum rfs_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rfs_vlog(lvl, fmt, ap);
	va_end(ap);
}
