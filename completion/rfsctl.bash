# SPDX-License-Identifier: GPL-2.0
# bash completion for rfsctl(8).  Mirrors the command and option tables of
# daemon/rfsctl/: commands and set's commands (unique prefixes resolve, as
# in rfsctl), the options of each, interface names from /sys/class/net for
# IFACE, XDP modes for --mode, stats formats for --format and the online
# CPUs for a CPU LIST.
# shellcheck disable=SC2207  # COMPREPLY=($(compgen ...)) splits on purpose

_rfsctl_commands="attach detach status stats flows top explain set version help"
_rfsctl_set_commands="sock-flow-entries flow-cnt cpus"
_rfsctl_global_opts="--socket --json --pretty --verbose --help"

# The one word of $2 (a list) that $1 names exactly or by unique prefix.
_rfsctl_resolve()
{
	local w found="" n=0
	for w in $2; do
		[[ $w == "$1" ]] && { echo "$w"; return; }
		[[ $w == "$1"* ]] && { found=$w; n=$((n + 1)); }
	done
	((n == 1)) && echo "$found"
}

_rfsctl_ifaces()
{
	local d
	for d in /sys/class/net/*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

# Online CPUs: the kernel's list ("0-7") and each CPU of it.
_rfsctl_cpus()
{
	local online part lo hi c
	online=$(cat /sys/devices/system/cpu/online 2>/dev/null) || return
	echo "$online"
	IFS=, read -ra part <<<"$online"
	for c in "${part[@]}"; do
		lo=${c%-*} hi=${c#*-}
		for ((; lo <= hi; lo++)); do
			echo "$lo"
		done
	done
}

# The options of a command ("set flow-cnt" for set's).
_rfsctl_cmd_opts()
{
	case $1 in
	attach) echo "--cpus --flow-cnt --mode --allow-unordered" ;;
	flows) echo "--limit --interval" ;;
	top) echo "--interval --once" ;;
	explain) echo "--rx-cpu" ;;
	stats) echo "--format" ;;
	esac
}

# What positional argument number $2 of command $1 is.
_rfsctl_positional()
{
	case "$1:$2" in
	attach:0 | detach:0 | stats:0 | flows:0 | explain:0) echo IFACE ;;
	explain:5) echo PROTO ;;
	"set flow-cnt:0" | "set cpus:0") echo IFACE ;;
	"set cpus:1") echo LIST ;;
	set:0) echo SETCMD ;;
	help:0) echo COMMAND ;;
	esac
}

_rfsctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=""
	local cmd="" w r i npos=0 opts what
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# the argument of an option
	case $prev in
	--socket)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--cpus)
		COMPREPLY=($(compgen -W "$(_rfsctl_cpus)" -- "$cur"))
		return
		;;
	--mode)
		COMPREPLY=($(compgen -W "auto native generic" -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "table prometheus" -- "$cur"))
		return
		;;
	--flow-cnt)
		COMPREPLY=($(compgen -W "1024 4096 16384 65536" -- "$cur"))
		return
		;;
	--rx-cpu)
		COMPREPLY=($(compgen -W "$(_rfsctl_cpus)" -- "$cur"))
		return
		;;
	--limit | --interval)
		return
		;;
	esac

	# find the command and count its positional arguments so far
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--socket | --cpus | --mode | --flow-cnt | --limit | --interval | --rx-cpu | --format)
			((i++))
			continue
			;;
		-*) continue ;;
		esac
		if [[ -z $cmd ]]; then
			cmd=$(_rfsctl_resolve "$w" "$_rfsctl_commands")
			[[ -z $cmd ]] && return
		elif [[ $cmd == set ]]; then
			r=$(_rfsctl_resolve "$w" "$_rfsctl_set_commands")
			[[ -z $r ]] && return
			cmd="set $r"
		else
			((npos++))
		fi
	done

	if [[ $cur == -* ]]; then
		if [[ -z $cmd ]]; then
			opts="$_rfsctl_global_opts --version"
		else
			opts="$(_rfsctl_cmd_opts "$cmd") $_rfsctl_global_opts"
		fi
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$_rfsctl_commands" -- "$cur"))
		return
	fi
	what=$(_rfsctl_positional "$cmd" "$npos")
	case $what in
	IFACE) COMPREPLY=($(compgen -W "$(_rfsctl_ifaces)" -- "$cur")) ;;
	LIST) COMPREPLY=($(compgen -W "$(_rfsctl_cpus)" -- "$cur")) ;;
	SETCMD) COMPREPLY=($(compgen -W "$_rfsctl_set_commands" -- "$cur")) ;;
	COMMAND) COMPREPLY=($(compgen -W "$_rfsctl_commands" -- "$cur")) ;;
	PROTO) COMPREPLY=($(compgen -W "tcp udp" -- "$cur")) ;;
	esac
}

complete -F _rfsctl rfsctl
