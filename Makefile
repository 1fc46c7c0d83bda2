# SPDX-License-Identifier: GPL-2.0
# xdp-rfs: Receive Flow Steering on XDP.
#
#   make            build BPF objects, skeletons, rfsd and rfsctl into build/
#   make check      install missing packages, build, run every test (root)
#   make check SANITIZE=1   the same on an ASan+UBSan build (build-san/)
#   make demo       install missing packages, build, run the lab demo (root)
#   make bench      benchmarks against kernel RPS/RFS (root)
#   make install    PREFIX=/usr/local DESTDIR= SBINDIR= MANDIR=
#   make V=1        show the full commands

PREFIX    ?= /usr/local
SBINDIR   ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR   ?= $(PREFIX)/lib/systemd/system
LIBEXECDIR ?= $(PREFIX)/libexec
COMPLDIR  ?= $(PREFIX)/share/bash-completion/completions
DESTDIR   ?=

CLANG     ?= clang
CC        ?= gcc
BPFTOOL   ?= bpftool
B         := build

# ---- SANITIZE=1: userspace with ASan+UBSan ---------------------------------
# `make check SANITIZE=1` builds rfsd, rfsctl, the tools and the tests into
# build-san/ (the plain build/ is left alone) and runs the suite on them:
# tests/run.sh and tests/lib/lab.sh take their binaries from $RFS_BUILD.
# BPF objects are built there too, unsanitized (BPF_CFLAGS).  Any report
# fails the test that caused it: -fno-sanitize-recover, and ASan's exit
# code.
ifeq ($(SANITIZE),1)
B         := build-san
CFLAGS    ?= -O2 -g
CFLAGS    += -fsanitize=address,undefined -fno-sanitize-recover=all \
	     -fno-omit-frame-pointer
export RFS_BUILD := $(B)
# verify_asan_link_order=0: tests/run.sh runs the tests under stdbuf,
# whose LD_PRELOAD comes before the ASan runtime
export ASAN_OPTIONS ?= detect_leaks=1:verify_asan_link_order=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
endif
# ---- end SANITIZE -----------------------------------------------------------

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-7s %s\n' "$(1)" "$(2)";
endif

ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

PKGS      := libbpf libxdp inih libsystemd json-c libmnl
CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 \
	     -Iinclude -I$(B) -Idaemon/lib -D_GNU_SOURCE
# a package build's own version (debian/rules), for --version and status
ifdef RFS_VERSION
CFLAGS    += -DRFS_VERSION='"$(RFS_VERSION)"'
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# rfsctl talks JSON over a socket and nothing else: no libbpf, no libxdp;
# ncurses draws rfsctl top (daemon/rfsctl/cmd_top.c), in rfsctl only
CTL_LIBS   = $(shell pkg-config --libs json-c ncurses 2>/dev/null)
# rfsd alone serves /metrics over HTTP (daemon/rfsd/metrics.c)
RFSD_PKGS  := libmicrohttpd
RFSD_CFLAGS = $(shell pkg-config --cflags $(RFSD_PKGS) 2>/dev/null)
RFSD_LIBS   = $(shell pkg-config --libs $(RFSD_PKGS) 2>/dev/null)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	      -Wall -Werror -Iinclude -Ibpf -I$(B)

HEADERS   := $(wildcard include/*.h)
BPF_HDRS  := $(wildcard bpf/*.h)
CORE_SRCS := bpf/rfs_cpumap.bpf.c bpf/rfs_enqueue.bpf.c bpf/rfs_gro.bpf.c \
	     bpf/rfs_sock_full.bpf.c bpf/rfs_sock_trace.bpf.c \
	     bpf/rfs_sockops.bpf.c
CORE_OBJS := $(patsubst bpf/%.c,$(B)/bpf/%.o,$(CORE_SRCS))
SKELS     := $(B)/rfs_core.skel.h $(B)/rfs_xdp.skel.h $(B)/rfs_jiffies.skel.h

LIB_SRCS  := $(wildcard daemon/lib/*.c)
LIB_HDRS  := $(wildcard daemon/lib/*.h)
RFSD_SRCS := $(wildcard daemon/rfsd/*.c)
CTL_SRCS  := $(wildcard daemon/rfsctl/*.c)
LIB_OBJS  := $(patsubst %.c,$(B)/%.o,$(LIB_SRCS))
# what rfsctl and the unit tests need: no datapath code
CTL_OBJS_LIB := $(B)/daemon/lib/log.o $(B)/daemon/lib/cpulist.o \
		$(B)/daemon/lib/ctl_client.o $(B)/daemon/lib/parse.o \
		$(B)/daemon/lib/rfs_prom.o
RFSD_OBJS := $(patsubst %.c,$(B)/%.o,$(RFSD_SRCS))
CTL_OBJS  := $(patsubst %.c,$(B)/%.o,$(CTL_SRCS))
BINS      := $(if $(RFSD_SRCS),$(B)/rfsd) $(if $(CTL_SRCS),$(B)/rfsctl)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
PROG_SRCS := $(wildcard tests/prog/test_*.c)
PROG_BINS := $(patsubst tests/prog/%.c,$(B)/tests/%,$(PROG_SRCS))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(B)/tests/%,$(TOOL_SRCS))

.PHONY: all deps check check-unit check-prog check-integration demo bench bench-bins \
	install uninstall clean
.DELETE_ON_ERROR:

all: $(SKELS) $(B)/rfs_core.bpf.o $(B)/rfs_xdp.bpf.o $(BINS)

deps:
	$(Q)scripts/deps.sh

$(B) $(B)/bpf $(B)/tests:
	$(Q)mkdir -p $@

$(B)/vmlinux.h: | $(B)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(B)/bpf/%.bpf.o: bpf/%.bpf.c $(HEADERS) $(BPF_HDRS) $(B)/vmlinux.h | $(B)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/rfs_core.bpf.o: $(CORE_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(B)/rfs_xdp.bpf.o $(B)/rfs_jiffies.bpf.o: $(B)/%.bpf.o: $(B)/bpf/%.bpf.o
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(B)/%.skel.h: $(B)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@ 2> $@.log || \
		{ cat $@.log >&2; exit 1; }

# Only the loader includes the skeletons: the CLI and unit tests build
# without clang or bpftool.
$(B)/daemon/lib/rfs_dp.o $(B)/daemon/lib/rfs_iface.o \
$(B)/daemon/lib/rfs_bpf.o: $(SKELS)

$(B)/daemon/%.o: daemon/%.c $(HEADERS) $(LIB_HDRS) $(wildcard daemon/*/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(B)/daemon/rfsd/metrics.o: PKG_CFLAGS += $(RFSD_CFLAGS)

# The commit rfsd was built from (status, rfs_build_info): rewritten only
# when it changes, so an unchanged tree rebuilds nothing.
$(B)/rfs_commit.h: FORCE | $(B)
	$(Q)c=$$(git -C $(CURDIR) describe --always --dirty --abbrev=12 \
		--match=NONE 2>/dev/null || echo unknown); \
	printf '#define RFS_COMMIT "%s"\n' "$$c" > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(B)/daemon/rfsd/commands.o: $(B)/rfs_commit.h
.PHONY: FORCE
FORCE:

# -lz: rfs_features.c reads /proc/config.gz; libbpf brings its own libelf
$(B)/rfsd: $(RFSD_OBJS) $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(RFSD_LIBS) -lz

$(B)/rfsctl: $(CTL_OBJS) $(CTL_OBJS_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(CTL_LIBS)

$(B)/tests/test_%: tests/unit/test_%.c $(HEADERS) $(CTL_OBJS_LIB) | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(CTL_OBJS_LIB) -lcmocka $(PKG_LIBS)

# test_seed: the hash seed, with getrandom() wrapped to fail on demand
$(B)/tests/test_seed: tests/unit/test_seed.c $(HEADERS) $(LIB_HDRS) \
		     $(LIB_OBJS) | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -Wl,--wrap=getrandom -o $@ $< \
		$(LIB_OBJS) -lcmocka $(PKG_LIBS) -lelf -lz

# test_budget: the flow table budgets (no libbpf)
$(B)/tests/test_budget: tests/unit/test_budget.c $(HEADERS) $(LIB_HDRS) \
		       $(B)/daemon/lib/rfs_budget.o $(B)/daemon/lib/parse.o | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< \
		$(B)/daemon/lib/rfs_budget.o $(B)/daemon/lib/parse.o -lcmocka

# test_link: the reading of an RTM_GETLINK answer (libmnl, no socket)
$(B)/tests/test_link: tests/unit/test_link.c $(HEADERS) $(LIB_HDRS) \
		     $(B)/daemon/lib/rfs_link.o | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< \
		$(B)/daemon/lib/rfs_link.o -lcmocka -lmnl

# test_kjudge: the feature judge and rfs_kfeat_set() (libbpf, zlib for
# rfs_features.c)
$(B)/tests/test_kjudge: tests/unit/test_kjudge.c $(HEADERS) $(LIB_HDRS) \
		       $(B)/daemon/lib/rfs_features.o $(B)/daemon/lib/rfs_budget.o \
		       $(B)/daemon/lib/parse.o | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(B)/daemon/lib/rfs_budget.o \
		$(B)/daemon/lib/rfs_features.o $(B)/daemon/lib/parse.o \
		-lcmocka $(PKG_LIBS) -lz

# test_hold: the held-flow judge (rfs_hold.c), pure
$(B)/tests/test_hold: tests/unit/test_hold.c $(HEADERS) $(LIB_HDRS) \
		     $(B)/daemon/lib/rfs_hold.o | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(B)/daemon/lib/rfs_hold.o -lcmocka

$(B)/tests/test_%: tests/prog/test_%.c $(HEADERS) $(SKELS) $(LIB_OBJS) $(wildcard tests/prog/*.h) | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/prog $(PKG_CFLAGS) -o $@ $< $(LIB_OBJS) -lcmocka $(PKG_LIBS) -lelf -lz

# test_percpu checks, at the call, that every lookup the library makes on
# a per-CPU map has room for all possible CPUs: it wraps libbpf's lookup.
$(B)/tests/test_percpu: private CFLAGS += -Wl,--wrap=bpf_map_lookup_elem

# ---- tests/prog BPF objects (test_xdp's layout probe, rfs_rearm) ----------
# tests/prog/bpf/*.bpf.c: small programs loaded next to the real datapath:
# layout.bpf.c reads where its map values are (test_xdp), rearm.bpf.c lets
# a plain test run repeat rfs_xdp on one buffer (test_xdp, bench/cost).
$(B)/tests/bpf:
	$(Q)mkdir -p $@

$(B)/tests/bpf/%.bpf.o: tests/prog/bpf/%.bpf.c tests/prog/bpf/rfs_layout.h \
			$(HEADERS) $(BPF_HDRS) $(B)/vmlinux.h | $(B)/tests/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/tests/bpf/%.skel.h: $(B)/tests/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name rfs_test_$* > $@ 2> $@.log || \
		{ cat $@.log >&2; exit 1; }

$(B)/tests/test_xdp: $(B)/tests/bpf/layout.skel.h tests/prog/bpf/rfs_layout.h \
		    $(B)/tests/bpf/rearm.skel.h
$(B)/bench/cost: $(B)/tests/bpf/rearm.skel.h
# other_xdp.bpf.c: another tool's program, for the lifecycle tests
TOOL_BINS += $(B)/tests/bpf/other_xdp.bpf.o
# ---- end tests/prog BPF objects ---------------------------------------------

# include/ for rfs_ifcfg, which reads struct rfs_if_config from the map
$(B)/tests/rfs_%: tests/tools/rfs_%.c $(HEADERS) \
		$(wildcard tests/tools/lib/*.h) | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# the bench's load generators share tests/tools/lib (histogram, sockets,
# /proc/stat)
TOOL_LIB := $(wildcard tests/tools/lib/*.c)
BENCH_TOOLS := $(B)/tests/rfs_rr $(B)/tests/rfs_rpc $(B)/tests/rfs_bulk
$(BENCH_TOOLS): $(B)/tests/%: tests/tools/%.c $(TOOL_LIB) \
		$(wildcard tests/tools/lib/*.h) | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(TOOL_LIB) -lpthread

# The fuzz layer: each parser's libFuzzer target over its corpus, then
# CHECK_FUZZ_SECONDS of new inputs from libFuzzer's seed CHECK_FUZZ_SEED,
# so that every machine tries the same inputs (make fuzz explores).
# CHECK_TESTS: what tests/run.sh runs (layers and integration scripts;
# every layer by default).
CHECK_FUZZ_SECONDS ?= 5
CHECK_FUZZ_SEED ?= 1
CHECK_TESTS ?= unit prog fuzz integration
check: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(PROG_BINS) $(TOOL_BINS) \
		$(FUZZ_BINS) $(B)/bench/inject
	$(Q)RFS_FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) RFS_FUZZ_SEED=$(CHECK_FUZZ_SEED) \
		tests/run.sh $(CHECK_TESTS)

check-unit: $(UNIT_BINS)
	$(Q)tests/run.sh unit

check-prog: $(PROG_BINS)
	$(Q)tests/run.sh prog

check-integration: all $(TOOL_BINS)
	$(Q)tests/run.sh integration

# ---- check-kernels: the suite on other kernels, in QEMU ---------------------
# Boots Debian 12's kernels (generic, PREEMPT_RT, cloud; unpacked under
# $(B)/kernels/, never installed) and this machine's (when /boot has it)
# in QEMU guests that share this checkout read-only, one after another,
# and runs each leg's tests there (tests/kernels/README.md): the generic
# kernel with many more possible CPUs than online ones on the sanitized
# build (build-san/), so both builds are made first; the ordering test of
# queue changes on an 8-vCPU guest.
#   make check-kernels KERNELS="rt cloud"   some legs only (debian, rt,
#                                          cloud, order, host)
# RFS_VM_LAYERS, RFS_VM_TIMEOUT, RFS_VM_ACCEL, ... go to tests/kernels/run.sh.
KERNELS ?=
.PHONY: check-kernels kernel-bins
check-kernels: deps
	$(Q)$(MAKE) --no-print-directory kernel-bins
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 kernel-bins
	$(Q)tests/kernels/run.sh $(KERNELS)
kernel-bins: all $(UNIT_BINS) $(PROG_BINS) $(TOOL_BINS) $(B)/tests/rfs_bpfcheck.so
# preloaded into sanitized processes: never instrumented itself (it must
# load into any process), hence not $(CFLAGS)
$(B)/tests/rfs_bpfcheck.so: tests/kernels/rfs_bpfcheck.c | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -fPIC -shared -o $@ $< -ldl
# ---- end check-kernels ------------------------------------------------------

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(TOOL_BINS)
	$(Q)scripts/demo.sh

# bench/: the per-frame cost loader and its floor, a bare cpumap redirect
# (bench/README.md).  BENCH_ARGS go to bench/run.sh (--rounds N, ...).
# rfs_ifcfg: bench/nic.sh sets noguard with it where rfsd cannot; rfs_rr,
# rfs_rpc, rfs_bulk, rfs_seq: bench/run.sh's load generators
BENCH_BINS := $(B)/bench/cost $(B)/bench/inject $(B)/bench/sizing $(B)/bench/floor \
	      $(B)/bench/order_locate \
	      $(B)/tests/rfs_ifcfg $(B)/tests/rfs_rr $(B)/tests/rfs_rpc \
	      $(B)/tests/rfs_bulk $(B)/tests/rfs_seq

$(B)/bench:
	$(Q)mkdir -p $@

# bench/*.bpf.c: an object and a skeleton each, under the name its tool's
# source uses
$(B)/bench/%.bpf.o: bench/%.bpf.c $(B)/vmlinux.h | $(B)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/bench/%.skel.h: $(B)/bench/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(BENCH_SKEL) > $@ 2> $@.log || \
		{ cat $@.log >&2; exit 1; }

$(B)/bench/bare_redirect.skel.h: BENCH_SKEL = rfs_bare
$(B)/bench/inject.skel.h: BENCH_SKEL = rfs_inject
$(B)/bench/stats_floor.skel.h: BENCH_SKEL = rfs_floor
$(B)/bench/order_locate.skel.h: BENCH_SKEL = order_locate

$(B)/bench/cost: bench/cost.c $(B)/bench/bare_redirect.skel.h $(HEADERS) \
		 $(SKELS) $(LIB_OBJS) $(wildcard tests/prog/*.h) | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/prog $(PKG_CFLAGS) -o $@ $< $(LIB_OBJS) $(PKG_LIBS) -lelf -lz

# floor: empty programs on two of the datapath's tracepoints, for the
# profile session's cost of a program run that does nothing
$(B)/bench/floor: bench/floor.c $(B)/bench/stats_floor.skel.h | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS)

# order_locate: where a TCP stream's order is lost (bench/order_locate.sh)
$(B)/bench/order_locate: bench/order_locate.c $(B)/bench/order_locate.skel.h | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS)

# inject: the NIC-like receive path (bench/nic.sh); its BPF front end
# gives each frame its flow, then tail-calls the program under test.
$(B)/bench/inject: bench/inject.c $(B)/bench/inject.skel.h $(HEADERS) | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS) -lpthread

# sizing: steering accuracy against table sizes, simulated over the
# decision code in include/ (no BPF, no root)
$(B)/bench/sizing: bench/sizing.c $(HEADERS) | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lm

bench: deps
	$(Q)$(MAKE) --no-print-directory bench-bins
	$(Q)bench/run.sh $(BENCH_ARGS)

# the bench's tools without a run (bench/ab-commits.sh, bench/nic.sh)
bench-bins: all $(BENCH_BINS)

install: all
	install -D -m 0755 $(B)/rfsd $(DESTDIR)$(SBINDIR)/rfsd
	install -D -m 0755 $(B)/rfsctl $(DESTDIR)$(SBINDIR)/rfsctl
	install -D -m 0644 man/rfsd.8 $(DESTDIR)$(MANDIR)/man8/rfsd.8
	install -D -m 0644 man/rfsctl.8 $(DESTDIR)$(MANDIR)/man8/rfsctl.8
	install -D -m 0644 systemd/rfsd.conf $(DESTDIR)$(SYSCONFDIR)/rfs/rfsd.conf.example
	install -D -m 0644 systemd/rfsd.env $(DESTDIR)$(SYSCONFDIR)/default/rfsd
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' \
	    -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
	    systemd/rfsd.service.in > $(B)/rfsd.service
	install -D -m 0644 $(B)/rfsd.service $(DESTDIR)$(UNITDIR)/rfsd.service
	install -D -m 0755 systemd/rfsd-prepare $(DESTDIR)$(LIBEXECDIR)/xdp-rfs/rfsd-prepare
	install -D -m 0644 systemd/rfsd-metrics.socket $(DESTDIR)$(UNITDIR)/rfsd-metrics.socket
	install -D -m 0644 completion/rfsctl.bash $(DESTDIR)$(COMPLDIR)/rfsctl
	@# the unit's User= and Group= (the control socket's group)
	[ -n "$(DESTDIR)" ] || getent group rfs >/dev/null || groupadd --system rfs
	[ -n "$(DESTDIR)" ] || getent passwd rfs >/dev/null || \
		useradd --system --gid rfs --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin rfs

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/rfsd $(DESTDIR)$(SBINDIR)/rfsctl \
	      $(DESTDIR)$(MANDIR)/man8/rfsd.8 $(DESTDIR)$(MANDIR)/man8/rfsctl.8 \
	      $(DESTDIR)$(UNITDIR)/rfsd.service \
	      $(DESTDIR)$(LIBEXECDIR)/xdp-rfs/rfsd-prepare \
	      $(DESTDIR)$(UNITDIR)/rfsd-metrics.socket $(DESTDIR)$(COMPLDIR)/rfsctl

clean:
	$(call msg,CLEAN,$(B))
	$(Q)rm -rf $(B)

# ---- parser tests and fuzzing ----------------------------------------------
# tests/unit/test_config.c, test_netlink.c, test_request.c and test_caps.c
# compile rfsd's config.c and node.c, netlink.c and netns.c, request.c and
# caps.c into themselves: rebuild them when those change.
# test_hist compiles the bench's histogram (tests/tools/lib/rfs_hist.c)
$(B)/tests/test_hist: tests/tools/lib/rfs_hist.c tests/tools/lib/rfs_hist.h
$(B)/tests/test_config: daemon/rfsd/config.c daemon/rfsd/rfsd.h daemon/rfsd/node.c
$(B)/tests/test_netlink: daemon/rfsd/netlink.c daemon/rfsd/netns.c daemon/rfsd/rfsd.h
$(B)/tests/test_request: daemon/rfsd/request.c daemon/rfsd/commands.h
$(B)/tests/test_peercred: daemon/rfsd/caps.c daemon/rfsd/server.h
$(B)/tests/test_caps: daemon/rfsd/caps.c daemon/rfsd/server.h
# and test_top_rates rfsctl's top_rates.c
$(B)/tests/test_top_rates: daemon/rfsctl/top_rates.c daemon/rfsctl/rfsctl.h
# and test_explain the library's explain: the linker drops the map reads
# it never calls, so it needs no datapath objects
$(B)/tests/test_explain: daemon/lib/rfs_explain.c daemon/lib/rfs_dp.h
$(B)/tests/test_explain: private CFLAGS += -ffunction-sections -Wl,--gc-sections

# libFuzzer targets of the parsers (tests/fuzz/README.md), built with
# clang-16 into build-fuzz/, never linked with libbpf.  A target
# fuzz_X.c is built from itself and the sources its rule below names:
#   make fuzz FUZZ_SECONDS=N   replay each corpus, fuzz each target N s
#   make check-fuzz            CHECK_FUZZ_SECONDS each from a fixed seed
FUZZ_CC      ?= clang-16
FUZZ_B       := build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_CFLAGS  := -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -std=gnu11 \
		-D_GNU_SOURCE -Iinclude -Idaemon/lib -Idaemon/rfsd -Itests/fuzz
FUZZ_LIBS     = $(shell pkg-config --libs inih json-c libmnl libmicrohttpd 2>/dev/null)
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_B)/%,$(wildcard tests/fuzz/fuzz_*.c))

$(FUZZ_B)/fuzz_config: daemon/rfsd/config.c daemon/rfsd/node.c daemon/lib/cpulist.c \
			daemon/lib/parse.c
$(FUZZ_B)/fuzz_request: daemon/rfsd/request.c daemon/lib/cpulist.c
$(FUZZ_B)/fuzz_preq: daemon/rfsd/request.c daemon/lib/cpulist.c
$(FUZZ_B)/fuzz_metrics: daemon/rfsd/metrics.c daemon/rfsd/request.c \
		daemon/lib/cpulist.c daemon/lib/parse.c daemon/lib/ctl_client.c \
		daemon/lib/rfs_prom.c
$(FUZZ_B)/fuzz_control: daemon/rfsd/server.c daemon/rfsd/request.c \
		daemon/lib/cpulist.c
$(FUZZ_B)/fuzz_cpulist: daemon/lib/cpulist.c
$(FUZZ_B)/fuzz_words: daemon/lib/parse.c
$(FUZZ_B)/fuzz_proc: daemon/lib/parse.c
$(FUZZ_B)/fuzz_netlink: daemon/lib/rfs_link.c
$(FUZZ_B)/fuzz_reply: daemon/lib/ctl_client.c daemon/lib/rfs_prom.c daemon/lib/log.c

$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(HEADERS) $(LIB_HDRS) \
		  $(wildcard daemon/rfsd/*.h)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS)

.PHONY: fuzz check-fuzz clean-fuzz
fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh --replay --seconds $(FUZZ_SECONDS)

check-fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh --replay --seed $(CHECK_FUZZ_SEED) \
		--seconds $(CHECK_FUZZ_SECONDS)

clean-fuzz:
	$(call msg,CLEAN,$(FUZZ_B))
	$(Q)rm -rf $(FUZZ_B)
# ---- end parser tests and fuzzing -------------------------------------------

# ---- the Debian package, its image, the DaemonSet (contrib/README.md) ------
#   make deb              build/deb/xdp-rfs_VERSION_ARCH.deb, built with
#                         dpkg-buildpackage in a copy of the tree; lintian
#                         errors fail it
#   make image            an OCI image of that package (podman, no registry)
#   make check-package    versions N and N+1 of the package through apt in a
#                         systemd-nspawn Debian machine: install, upgrade
#                         under traffic, remove, purge (root)
#   make check-container  the image under podman on a lab veth: steering,
#                         a restart under traffic (root)
#   make check-manifests  contrib/kubernetes without a cluster
DEB_OUT     := build/deb
DEB_VERSION  = $(shell dpkg-parsechangelog -l debian/changelog -S Version)
DEB_ARCH     = $(shell dpkg --print-architecture)
DEB_FILE     = $(DEB_OUT)/xdp-rfs_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_NEXT     = $(DEB_OUT)/next/xdp-rfs_$(DEB_VERSION)+1_$(DEB_ARCH).deb
IMAGE       ?= localhost/xdp-rfs:$(DEB_VERSION)
.PHONY: deps-package deb image check-package check-container check-manifests

deps-package:
	$(Q)scripts/deps.sh package

deb: deps-package
	$(Q)scripts/deb.sh --out $(DEB_OUT)

image: deb
	$(Q)contrib/container/build.sh $(DEB_FILE) $(IMAGE)

check-package: deb
	$(Q)$(MAKE) --no-print-directory all $(B)/tests/rfs_seq
	$(Q)DEB_BUILD_OPTIONS=nocheck scripts/deb.sh --no-lintian \
		--out $(DEB_OUT)/next --version $(DEB_VERSION)+1
	$(Q)RFS_DEB_N=$(CURDIR)/$(DEB_FILE) RFS_DEB_N1=$(CURDIR)/$(DEB_NEXT) \
		tests/package/test_upgrade.sh

check-container: deb
	$(Q)$(MAKE) --no-print-directory all $(B)/tests/rfs_seq
	$(Q)RFS_DEB_N=$(CURDIR)/$(DEB_FILE) tests/package/test_container.sh

check-manifests: deps-package
	$(Q)tests/package/test_manifests.sh
# ---- end package, image, DaemonSet -------------------------------------------
