// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"

static const char *log_prog = "rfs";
static bool log_verbose;
static bool log_journal;

void rfs_log_init(const char *prog, bool verbose)
{
	log_prog = prog;
	log_verbose = verbose;
	log_journal = getenv("INVOCATION_ID") != NULL;
}

bool rfs_log_verbose(void)
{
	return log_verbose;
}

static void rfs_vlog(enum rfs_log_level lvl, const char *fmt, va_list ap)
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

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!log_verbose && level != LIBBPF_WARN)
		return 0;
	/* libbpf warns about many things it then handles; keep them at -v */
	if (!log_verbose)
		return 0;
	rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (!log_verbose)
		return 0;
	rfs_vlog(RFS_LOG_DEBUG, fmt, ap);
	return 0;
}

void rfs_log_hook_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
