# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What a bench run measured and on what machine: the head of its
# meta.txt.  Sourced by bench/run.sh, and by bench/nic.sh, which writes a
# meta.txt of its own when it runs alone.  Needs TOP (the checkout) and
# BUILD (the binaries).

# The kernel's config (CONFIG_HZ and such): /boot's, or the running
# kernel's own.  meta_kconfig KEY prints KEY's value, or nothing.
meta_kconfig()
{
	{ cat "/boot/config-$(uname -r)" 2>/dev/null ||
		zcat /proc/config.gz 2>/dev/null; } | sed -n "s/^$1=//p" | head -n 1
}

# The preemption model: the current one where debugfs says it; else what
# uname -v says was built, and for a dynamic kernel the boot choice
# (preempt= on the command line, or the config's default).
meta_preempt()
{
	local v m k
	v=" $(uname -v) "
	m=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' /sys/kernel/debug/sched/preempt 2>/dev/null)
	case $v in
	*" PREEMPT_RT "*) echo "rt" ;;
	*" PREEMPT_DYNAMIC "*)
		if [ -n "$m" ]; then
			echo "dynamic, $m (sched/preempt)"
		elif m=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^preempt=//p') &&
		     [ -n "$m" ]; then
			echo "dynamic, $m at boot (preempt=; sched/preempt unreadable)"
		else
			m="?"
			for k in full: lazy:_LAZY voluntary:_VOLUNTARY none:_NONE; do
				[ "$(meta_kconfig "CONFIG_PREEMPT${k#*:}")" = y ] && m=${k%%:*}
			done
			echo "dynamic, $m at boot (the config's default; sched/preempt unreadable)"
		fi ;;
	*" PREEMPT "*) echo "full" ;;
	*" PREEMPT_LAZY "*) echo "lazy" ;;
	*) [ "$(meta_kconfig CONFIG_PREEMPT_VOLUNTARY)" = y ] && echo "voluntary" ||
		echo "none" ;;
	esac
}

# What was measured: the checkout's HEAD and its uncommitted changes (to
# what builds or drives the datapath; not to committed results), or,
# for binaries from elsewhere (RFS_BUILD=, e.g. a `git archive` of one
# commit while this checkout moves on, or bench/ab-commits.sh's RFSD= of
# a worktree), what RFS_BENCH_REV says.
meta_rev()
{
	local dirty
	if [ -n "${RFS_BENCH_REV:-}" ]; then
		echo "$RFS_BENCH_REV (rfsd ${RFSD:-$BUILD/rfsd})"
		return
	fi
	dirty=$(git -C "$TOP" status --porcelain --untracked-files=no -- bpf include daemon bench ':!bench/results' tests/tools Makefile 2>/dev/null |
		awk '{ print $2 }' | paste -sd' ')
	echo "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo "?")${dirty:+ plus uncommitted changes to $dirty}"
}

# meta.txt's first lines: commit, kernel, cpus, cpu_model, hz, preempt,
# cpuidle, date.
meta_machine()
{
	local idle=/sys/devices/system/cpu/cpuidle gov
	gov=$(cat "$idle/current_governor_ro" 2>/dev/null ||
	      cat "$idle/current_governor" 2>/dev/null)
	echo "commit: $(meta_rev)"
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc)"
	echo "cpu_model: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "hz: $(meta_kconfig CONFIG_HZ | grep . || echo "unknown (no kernel config in /boot or /proc/config.gz)")"
	echo "preempt: $(meta_preempt)"
	echo "cpuidle: $(cat "$idle/current_driver" 2>/dev/null || echo none)${gov:+ (governor $gov)}"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
