// SPDX-License-Identifier: GPL-2.0
/*
 * Least privilege: what rfsd keeps, what its children keep, and what
 * each peer of the control socket may ask (its role, server.h).
 *
 * rfsd loads, attaches and moves into namespaces on request (rfsctl
 * attach, SIGHUP, an interface moved), not only at start, so it keeps
 * the same set after start: CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN,
 * CAP_SYS_ADMIN, CAP_SYS_PTRACE if it has it (netns.c) and, unless
 * cpumap_kthread_sched = kernel, CAP_SYS_NICE (rfsd(8), Capabilities).
 * CAP_SETUID, CAP_SETGID and CAP_SETPCAP, when rfsd has them (started by
 * hand as root), stay permitted, never effective: a parsing child takes
 * them up only to become nobody with an empty bounding set.  Without
 * them a child stays rfsd's uid; either way its system call filter is
 * what confines it.  The rest goes once the datapath is loaded, among it
 * CAP_SYS_RESOURCE (libbpf's RLIMIT_MEMLOCK bump before 5.11).  Raw
 * capget/capset and prctl, no library: three calls.
 */
#include <grp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "log.h"
#include "server.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

/* What rfsd keeps, by capsh's names */
static const char *const rfsd_kept[] = {
	[CAP_NET_ADMIN] = "cap_net_admin",
	[CAP_SYS_PTRACE] = "cap_sys_ptrace",
	[CAP_SYS_ADMIN] = "cap_sys_admin",
	[CAP_SYS_NICE] = "cap_sys_nice",	/* if keep_nice */
	[CAP_PERFMON] = "cap_perfmon",
	[CAP_BPF] = "cap_bpf",
};

#define RFSD_NKEPT (int)(sizeof(rfsd_kept) / sizeof(rfsd_kept[0]))
/* permitted only: for the parser process */
#define RFSD_PARSER_CAPS ((1u << CAP_SETUID) | (1u << CAP_SETGID) | \
			  (1u << CAP_SETPCAP))

static bool rfsd_cap_kept(int cap, bool keep_nice)
{
	return cap < RFSD_NKEPT && rfsd_kept[cap] &&
	       (cap != CAP_SYS_NICE || keep_nice);
}

/* The bounding set (all: emptied) while CAP_SETPCAP may be effective:
 * without it (EPERM; the unit) the set stays the caller's, and execve(),
 * which could refill it for uid 0, is outside a child's filter.  -EINVAL:
 * past the last capability; from PR_CAP_AMBIENT, a kernel before 4.3. */
static int rfsd_bound_drop(bool all, bool keep_nice)
{
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if ((all || !(rfsd_cap_kept(cap, keep_nice) ||
			     (cap < 32 && (RFSD_PARSER_CAPS & (1u << cap))))) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EPERM)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	return 0;
}

static struct __user_cap_header_struct cap_hdr = {
	.version = _LINUX_CAPABILITY_VERSION_3,
};

int rfsd_caps_drop(bool keep_nice, char *kept, size_t len, int *dropped)
{
	struct __user_cap_data_struct data[2] = {};
	__u32 keep[2] = {};
	int cap, i, e;
	size_t n;

	kept[0] = '\0';
	*dropped = 0;
	for (cap = 0; cap < RFSD_NKEPT; cap++)
		if (rfsd_cap_kept(cap, keep_nice))
			keep[cap / 32] |= 1u << (cap % 32);
	e = rfsd_bound_drop(false, keep_nice);
	if (e)
		return e;
	if (syscall(SYS_capget, &cap_hdr, data))
		return -errno;
	for (i = 0; i < 2; i++) {
		*dropped += __builtin_popcount(data[i].effective & ~keep[i]);
		data[i].permitted &= keep[i] | (i ? 0 : RFSD_PARSER_CAPS);
		data[i].effective &= keep[i];
		data[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &cap_hdr, data))
		return -errno;
	for (cap = 0; cap < RFSD_NKEPT; cap++)
		if (data[cap / 32].effective & keep[cap / 32] & (1u << (cap % 32))) {
			n = strlen(kept);
			snprintf(kept + n, len - n, "%s%s", n ? "," : "",
				 rfsd_kept[cap]);
		}
	return 0;
}

int rfsd_caps_drop_all(uid_t uid, gid_t gid)
{
	struct __user_cap_data_struct data[2] = {};
	__u32 sw = (1u << CAP_SETUID) | (1u << CAP_SETGID);
	int e;

	/* what rfsd kept permitted for this, effective for the switch */
	if (syscall(SYS_capget, &cap_hdr, data))
		return -errno;
	data[0].effective = data[0].permitted & RFSD_PARSER_CAPS;
	data[1].effective = 0;
	if (syscall(SYS_capset, &cap_hdr, data))
		return -errno;
	e = rfsd_bound_drop(true, false);
	if (e)
		return e;
	/* both or none: half a switch would only fail */
	if ((data[0].permitted & sw) == sw &&
	    (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	     setresuid(uid, uid, uid)))
		return -errno;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &cap_hdr, data) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

#if defined(__x86_64__)
#define RFSD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RFSD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#define RFSD_ALLOW(name) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int rfsd_child_seccomp(bool http)
{
#ifdef RFSD_AUDIT_ARCH
	/*
	 * The parser's calls (strace of every command): its socket, alarm()
	 * (setitimer() where there is none), json-c's getrandom, malloc, the
	 * clock, a log line, the exits, and sigaltstack() (a sanitizer's at
	 * exit).  The HTTP server adds what libmicrohttpd calls on the socket
	 * it was given and its peers (strace -f of scrapes), its loop and the
	 * snapshots' memfds: nothing that opens a file or a socket.  Anything
	 * else kills the process; rfsd starts another.
	 */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RFSD_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* x32 calls come with the x86_64 arch, at numbers above */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		RFSD_ALLOW(read), RFSD_ALLOW(recvfrom), RFSD_ALLOW(recvmsg),
		RFSD_ALLOW(write), RFSD_ALLOW(writev), RFSD_ALLOW(sendto),
		RFSD_ALLOW(sendmsg),
#ifdef __NR_alarm
		RFSD_ALLOW(alarm),
#endif
		RFSD_ALLOW(setitimer), RFSD_ALLOW(getrandom),
		RFSD_ALLOW(brk), RFSD_ALLOW(mmap), RFSD_ALLOW(munmap),
		RFSD_ALLOW(mremap), RFSD_ALLOW(madvise), RFSD_ALLOW(futex),
		RFSD_ALLOW(rt_sigreturn), RFSD_ALLOW(rt_sigprocmask),
		RFSD_ALLOW(sigaltstack),
		RFSD_ALLOW(clock_gettime), RFSD_ALLOW(gettimeofday),
		RFSD_ALLOW(getpid), RFSD_ALLOW(exit), RFSD_ALLOW(exit_group),
		/* the parser's end: a no-op jump for the HTTP server */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#ifdef __NR_poll
		RFSD_ALLOW(poll), RFSD_ALLOW(epoll_wait),
#endif
		RFSD_ALLOW(accept4), RFSD_ALLOW(epoll_create1),
		RFSD_ALLOW(epoll_ctl), RFSD_ALLOW(epoll_pwait), RFSD_ALLOW(ppoll),
		RFSD_ALLOW(setsockopt), RFSD_ALLOW(getsockopt),
		RFSD_ALLOW(getsockname), RFSD_ALLOW(fcntl), RFSD_ALLOW(shutdown),
		RFSD_ALLOW(close), RFSD_ALLOW(fstat), RFSD_ALLOW(newfstatat),
		RFSD_ALLOW(pread64), RFSD_ALLOW(timerfd_create),
		RFSD_ALLOW(timerfd_settime),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {
		.len = sizeof(f) / sizeof(f[0]), .filter = f,
	};
	size_t i = 6;

	while (f[i].k != SECCOMP_RET_KILL_PROCESS)
		i++;
	if (http)
		f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -errno : 0;
#else
	return -EOPNOTSUPP;
#endif
}

/* ---- a control socket peer's role, from the kernel's credentials ---- */

static void lookup_group(const char *name, bool *have, gid_t *gid)
{
	struct group *g = getgrnam(name);

	*have = g != NULL;
	*gid = g ? g->gr_gid : 0;
}

void rfsd_groups_set(struct rfsd_groups *g, const char *read,
		     const char *admin)
{
	if (read)
		snprintf(g->read_name, sizeof(g->read_name), "%s", read);
	snprintf(g->admin_name, sizeof(g->admin_name), "%s", admin);
	lookup_group(g->read_name, &g->have_read, &g->read);
	lookup_group(g->admin_name, &g->have_admin, &g->admin);
	snprintf(g->deny, sizeof(g->deny), "changes need root or group '%s'",
		 g->admin_name);
	if (!g->have_admin)
		pr_info("group '%s' does not exist: only root can change what rfsd steers\n",
			g->admin_name);
}

static bool in_groups(const gid_t *g, size_t n, gid_t want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] == want)
			return true;
	return false;
}

enum rfsd_role rfsd_role_of(uid_t uid, gid_t gid, const gid_t *g, size_t n,
			    const struct rfsd_groups *grp)
{
	if (uid == 0)
		return RFSD_ROLE_ADMIN;
	if (grp->have_admin && (gid == grp->admin || in_groups(g, n, grp->admin)))
		return RFSD_ROLE_ADMIN;
	if (grp->have_read && (gid == grp->read || in_groups(g, n, grp->read)))
		return RFSD_ROLE_READ;
	return RFSD_ROLE_NONE;
}

enum rfsd_role rfsd_peer_role(int fd, const struct ucred *cr,
			      const struct rfsd_groups *grp)
{
	enum rfsd_role role;
	socklen_t len = 0;
	gid_t *g = NULL;

	/* the supplementary groups the kernel recorded at connect(): they
	 * can't change, so a first call that says how many is enough;
	 * failing that (no memory), the primary group alone */
	if (cr->uid && (grp->have_read || grp->have_admin) &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, NULL, &len) &&
	    errno == ERANGE)
		g = malloc(len);
	if (g && getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len))
		len = 0;
	role = rfsd_role_of(cr->uid, cr->gid, g, g ? len / sizeof(*g) : 0,
			    grp);
	free(g);
	return role;
}
