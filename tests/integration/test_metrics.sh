#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsd's Prometheus endpoint (metrics_listen) and `rfsctl stats --format
# prometheus`, checked with the real tools: promtool on both outputs, a
# real Prometheus server (own port, own temp dir) that scrapes rfsd and is
# asked for a series back through its HTTP API; the Grafana dashboard in
# contrib/ against a live exposition; a scraper that stalls must not stall
# the control socket.  Each test has its own lab (tests/lib/lab.sh) and
# rfsd, with traffic from the lab namespace to a server in the root one.
#
#	tests/integration/test_metrics.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

ALL_TESTS="
	test_exposition
	test_prometheus_server
	test_dashboard
	test_stalled_scrapers
	test_scrape_during_flows
	test_reload_and_errors
	test_snapshot_shared
	test_per_peer_limit
	test_request_deadline
	test_not_loopback_warned
	test_socket_from_systemd
	test_http_unprivileged
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

DASHBOARD=$LAB_TOP/contrib/grafana/xdp-rfs.json

# A TCP port free on loopback now (the kernel's pick).
free_port()
{
	"$LAB_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# lab + rfsd serving metrics on 127.0.0.1:$MPORT, attached to the lab
# interface; then $1 seconds of request/response traffic through it.
setup()
{
	lab_trap
	lab_up
	lab_init
	MPORT=$(free_port) || fail "can't pick a port"
	MURL=http://127.0.0.1:$MPORT/metrics
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n' "$MPORT" \
		> "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	if [ "${1:-0}" != 0 ]; then
		lab_server "$(lab_online_cpus | head -n1)"
		lab_client "$LAB_IP4_A" "$1" 2
		lab_wait "$LAB_CLIENT_PID" $(( $1 + 30 )) ||
			fail "the lab client did not finish"
	fi
}

scrape()	# [URL]: the body on stdout; fails unless 200
{
	curl -sS --max-time 10 --fail "${1:-$MURL}" ||
		fail "can't scrape ${1:-$MURL}"
}

# The series of an exposition, values left out: name{labels}
series() { grep -v '^#' | sed 's/ [^ ]*$//' | sort; }

# Sum of the samples of one series selector (an exact prefix) in stdin.
sum_of() { awk -v p="$1" 'index($0, p) == 1 { s += $NF } END { printf "%.0f\n", s }'; }

promtool_ok()	# FILE WHAT
{
	local out
	out=$(promtool check metrics < "$1" 2>&1) ||
		fail "promtool check metrics rejects $2: $out"
	# promtool also lints (names, HELP): it prints what it dislikes
	[ -z "$out" ] || fail "promtool check metrics on $2 says: $out"
}

# -------------------------------------------------------------------- tests

# Both outputs pass promtool, have the same series, and hold every
# counter `rfsctl -j stats` reports, with traffic counted on the lab
# interface.
test_exposition()
{
	local key n
	lab_trap
	lab_up
	lab_init
	MPORT=$(free_port) || fail "can't pick a port"
	MURL=http://127.0.0.1:$MPORT/metrics
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n' "$MPORT" \
		> "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	# nothing attached yet: still a valid exposition
	scrape > "$LAB_DIR/empty.prom"
	promtool_ok "$LAB_DIR/empty.prom" "/metrics with no interface"
	grep -q '^rfs_build_info{' "$LAB_DIR/empty.prom" ||
		fail "no rfs_build_info with no interface attached"

	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	lab_server "$(lab_online_cpus | head -n1)"
	lab_client "$LAB_IP4_A" 3 2
	lab_wait "$LAB_CLIENT_PID" 40 || fail "the lab client did not finish"

	scrape > "$LAB_DIR/http.prom"
	ctl stats --format prometheus > "$LAB_DIR/ctl.prom" ||
		fail "rfsctl stats --format prometheus failed"
	curl -sS -D "$LAB_DIR/headers" -o /dev/null "$MURL"
	promtool_ok "$LAB_DIR/http.prom" "rfsd's /metrics"
	promtool_ok "$LAB_DIR/ctl.prom" "rfsctl stats --format prometheus"
	grep -qi '^content-type: text/plain; version=0.0.4' "$LAB_DIR/headers" ||
		fail "/metrics is not served as text format 0.0.4: $(cat "$LAB_DIR/headers")"

	# one formatter: the same series (values move between the two)
	diff <(series < "$LAB_DIR/http.prom") <(series < "$LAB_DIR/ctl.prom") \
		> "$LAB_DIR/diff" ||
		fail "/metrics and rfsctl stats --format prometheus differ in series: $(cat "$LAB_DIR/diff")"
	say "$(grep -vc '^#' "$LAB_DIR/http.prom") samples in $(grep -c '^# TYPE' "$LAB_DIR/http.prom") families, same in both"

	# every key of rfsctl -j stats is there: a counter as rfs_<key>_total,
	# backlog (a level) as the gauge rfs_backlog, kthread_wait_ns in
	# seconds
	for key in $(ctlj stats | jget '"\n".join(k for k in d["per_cpu"][0] if k != "cpu")'); do
		if [ "$key" = backlog ]; then
			grep -q "^# TYPE rfs_backlog gauge$" "$LAB_DIR/http.prom" ||
				fail "stats' backlog is not the gauge rfs_backlog in /metrics"
			continue
		fi
		if [ "$key" = kthread_wait_ns ]; then
			grep -q "^# TYPE rfs_kthread_wait_seconds_total counter$" "$LAB_DIR/http.prom" ||
				fail "stats' kthread_wait_ns is not rfs_kthread_wait_seconds_total in /metrics"
			continue
		fi
		grep -q "^# TYPE rfs_${key}_total counter$" "$LAB_DIR/http.prom" ||
			fail "stats counter '$key' has no rfs_${key}_total in /metrics"
	done
	# what traffic did shows, on the lab interface, per CPU
	n=$(sum_of "rfs_seen_total{interface=\"$LAB_A\",cpu=" < "$LAB_DIR/http.prom")
	say "rfs_seen_total{interface=\"$LAB_A\"} sums to $n"
	[ "$n" -gt 0 ] || fail "no frame counted in rfs_seen_total for $LAB_A"
	[ "$(grep -c "^rfs_seen_total{interface=\"$LAB_A\",cpu=\"[0-9]*\"} " "$LAB_DIR/http.prom")" \
		-eq "$(lab_nr_cpus)" ] || fail "rfs_seen_total has not one series per CPU"
	n=$(ctlj stats "$LAB_A" | jget 'd["total"]["seen"]')
	[ "$n" -ge "$(sum_of "rfs_seen_total{interface=\"$LAB_A\"," < "$LAB_DIR/http.prom")" ] ||
		fail "rfsctl stats shows fewer frames ($n) than /metrics did before it"
	n=$(sum_of "rfs_recv_local_total{cpu=" < "$LAB_DIR/http.prom")
	n=$((n + $(sum_of "rfs_recv_remote_total{cpu=" < "$LAB_DIR/http.prom")))
	[ "$n" -gt 0 ] || fail "no receive counted in rfs_recv_local/remote_total"
	grep -q "^rfs_interface_attached{interface=\"$LAB_A\",mode=\"$(ctlj status | jget 'd["interfaces"][0]["mode"]')\"} 1$" \
		"$LAB_DIR/http.prom" || fail "no rfs_interface_attached for $LAB_A with its mode"
	grep -q "^rfs_sock_flow_entries $(ctlj status | jget 'd["sock_flow_entries"]')$" \
		"$LAB_DIR/http.prom" || fail "rfs_sock_flow_entries is not status's sock_flow_entries"
	grep -q "^rfs_build_info{version=\"$(ctlj status | jget 'd["version"]')\",commit=\"$(ctlj status | jget 'd["commit"]')\"} 1$" \
		"$LAB_DIR/http.prom" || fail "rfs_build_info is not rfsd's version and commit"
	# not a page of anything else
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/nope")" = 404 ] ||
		fail "an unknown path is not 404"
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$MURL")" = 405 ] ||
		fail "POST /metrics is not 405"
	# a GET that announces a body is refused, chunked or not
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X GET --data x "$MURL")" = 400 ] ||
		fail "a GET /metrics with a body is not 400"
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X GET -H 'Transfer-Encoding: chunked' \
		--data x "$MURL")" = 400 ] || fail "a GET /metrics with a chunked body is not 400"
	return 0
}

# A real Prometheus scrapes rfsd every second; a counter the traffic made
# non-zero comes back through its query API with rfsd's labels.
test_prometheus_server()
{
	local pport pdir i out
	lab_need prometheus
	setup 3
	pport=$(free_port) || fail "can't pick a port"
	pdir=$LAB_DIR/prometheus
	mkdir -p "$pdir"
	cat > "$pdir/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: rfsd
	    static_configs:
	      - targets: ['127.0.0.1:$MPORT']
	EOF
	lab_bg prometheus --config.file="$pdir/prometheus.yml" \
		--storage.tsdb.path="$pdir/data" \
		--web.listen-address="127.0.0.1:$pport" \
		>"$pdir/log" 2>&1
	PROM_PID=$LAB_BG_PID
	say "prometheus (pid $PROM_PID) on 127.0.0.1:$pport scraping :$MPORT"
	for ((i = 0; i < 600; i++)); do
		lab_alive "$PROM_PID" ||
			fail "prometheus exited: $(tail -n 5 "$pdir/log")"
		out=$(curl -s --max-time 2 "http://127.0.0.1:$pport/api/v1/query" \
			--data-urlencode 'query=up{job="rfsd"}' | jget \
			'd["data"]["result"][0]["value"][1] if d["data"]["result"] else ""' 2>/dev/null)
		[ "$out" = 1 ] && break
		sleep 0.1
	done
	[ "$out" = 1 ] || fail "prometheus did not scrape rfsd within 60 s (up='$out'): $(tail -n 5 "$pdir/log")"
	say "up{job=\"rfsd\"} is 1 after $(lab_since "$TEST_T0")s"
	curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=rfs_seen_total{interface=\"$LAB_A\"}" \
		> "$pdir/seen.json" || fail "can't query prometheus"
	"$LAB_PY" - "$pdir/seen.json" "$LAB_A" "$(lab_nr_cpus)" <<-'EOF' ||
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["status"] == "success", d
	r = d["data"]["result"]
	cpus = sorted(int(s["metric"]["cpu"]) for s in r)
	assert cpus == list(range(int(sys.argv[3]))), "cpus %s" % cpus
	for s in r:
	    m = s["metric"]
	    assert m["__name__"] == "rfs_seen_total", m
	    assert m["interface"] == sys.argv[2], m
	    assert m["job"] == "rfsd", m
	total = sum(float(s["value"][1]) for s in r)
	assert total > 0, "rfs_seen_total sums to %s" % total
	print("    rfs_seen_total{interface=%s} from prometheus: %d series, sum %d"
	      % (sys.argv[2], len(r), total))
	EOF
		fail "prometheus's answer for rfs_seen_total is not right: $(cat "$pdir/seen.json")"
	kill -TERM "$PROM_PID"
	# its exit status is Prometheus's own affair (a shutdown that
	# interrupts its TSDB's work exits 1): only that it ends is ours
	lab_wait "$PROM_PID" 20
	[ $? -ne 124 ] || fail "prometheus did not exit on SIGTERM"
}

# The dashboard is JSON Grafana can import, and every rfs_ metric its
# queries name is in the exposition: renaming a metric breaks this test,
# not the dashboard silently.
test_dashboard()
{
	setup 2
	scrape > "$LAB_DIR/http.prom"
	"$LAB_PY" - "$DASHBOARD" "$LAB_DIR/http.prom" <<-'EOF' || fail "contrib/grafana/xdp-rfs.json does not match the exposition"
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	have = set()
	for line in open(sys.argv[2]):
	    if line.startswith("# TYPE "):
	        have.add(line.split()[2])
	exprs = []
	def walk(o):
	    if isinstance(o, dict):
	        for k, v in o.items():
	            if k in ("expr", "definition") and isinstance(v, str):
	                exprs.append(v)
	            elif k == "query" and isinstance(v, str):
	                exprs.append(v)
	            else:
	                walk(v)
	    elif isinstance(o, list):
	        for v in o:
	            walk(v)
	walk(d)
	assert d.get("panels"), "no panels"
	assert exprs, "no query in the dashboard"
	used = set()
	for e in exprs:
	    used |= set(re.findall(r"\brfs_[a-z0-9_]+", e))
	missing = sorted(used - have)
	assert not missing, "not in the exposition: %s" % missing
	for want in ("rfs_steered_total", "rfs_recv_local_total",
	             "rfs_recv_remote_total", "rfs_enqueue_drops_total",
	             "rfs_backlog"):
	    assert want in used, "the dashboard does not plot " + want
	print("    %d panels, %d queries, metrics: %s" % (len(d["panels"]), len(exprs),
	      " ".join(sorted(used))))
	EOF
}

# Scrapers that send half a request, or ask and never read, hold their own
# connections only: the control socket and other scrapes go on, and MHD
# drops the stalled ones after its timeout.  Three of them: one address
# holds RFSD_METRICS_PER_IP (4) connections at most, the scrape takes the
# fourth.
test_stalled_scrapers()
{
	local t0 i
	setup 0
	# a file: a background job's stdin is /dev/null, not a here-document
	cat > "$LAB_DIR/stalled.py" <<-'EOF'
	import socket, sys, time
	port = int(sys.argv[1])
	conns = []
	for i in range(2):
	    s = socket.create_connection(("127.0.0.1", port))
	    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")   # never finished
	    conns.append(s)
	for i in range(1):
	    s = socket.socket()
	    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
	    s.connect(("127.0.0.1", port))
	    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")  # never read
	    conns.append(s)
	open(sys.argv[2], "w").close()
	time.sleep(25)
	# rfsd must have dropped the half-sent ones by now
	closed = 0
	for s in conns[:2]:
	    s.settimeout(1)
	    try:
	        closed += s.recv(4096) == b""
	    except Exception:
	        pass
	open(sys.argv[3], "w").write("%d\n" % closed)
	EOF
	lab_bg "$LAB_PY" "$LAB_DIR/stalled.py" "$MPORT" "$LAB_DIR/stalled.ready" \
		"$LAB_DIR/stalled.out"
	for ((i = 0; i < 100; i++)); do
		[ -e "$LAB_DIR/stalled.ready" ] && break
		sleep 0.1
	done
	[ -e "$LAB_DIR/stalled.ready" ] || fail "the stalled scrapers did not connect"
	for i in 1 2 3 4 5; do
		t0=$(lab_now)
		ctl status >/dev/null || fail "rfsctl status failed beside stalled scrapers"
		scrape > "$LAB_DIR/http.prom"
		grep -q '^rfs_build_info{' "$LAB_DIR/http.prom" || fail "a scrape got no exposition"
		say "status + a scrape beside 3 stalled scrapers: $(lab_since "$t0")s"
		# generous for a loaded host: a server blocked on a stalled peer
		# would take the whole 25 s
		awk -v t="$(lab_since "$t0")" 'BEGIN { exit !(t < 5) }' ||
			fail "status and a scrape took $(lab_since "$t0")s beside stalled scrapers"
		sleep 0.5
	done
	lab_wait "$LAB_BG_PID" 60 || fail "the stalled scrapers did not finish"
	[ "$(cat "$LAB_DIR/stalled.out" 2>/dev/null)" = 2 ] ||
		fail "rfsd did not drop the scrapers that stalled mid-request (closed: $(cat "$LAB_DIR/stalled.out" 2>/dev/null))"
}

# While rfsctl flows samples (beside every other request), a scrape gets a
# whole exposition.
test_scrape_during_flows()
{
	local fpid code t0
	setup 0
	lab_bg "$RFSCTL" --socket "$RFS_SOCK" flows --interval 3000 \
		>"$LAB_DIR/flows.out" 2>&1
	fpid=$LAB_BG_PID
	sleep 0.5
	t0=$(lab_now)
	code=$(curl -sS --max-time 15 -o "$LAB_DIR/http.prom" -w '%{http_code}' "$MURL") ||
		fail "a scrape during rfsctl flows failed"
	say "a scrape during a 3 s flows sample: HTTP $code after $(lab_since "$t0")s"
	[ "$code" = 200 ] || fail "a scrape during rfsctl flows got HTTP $code"
	promtool_ok "$LAB_DIR/http.prom" "/metrics scraped during rfsctl flows"
	lab_wait "$fpid" 20 || fail "rfsctl flows did not finish"
	ctl status >/dev/null || fail "rfsd does not answer after flows and a scrape"
}

# SIGHUP moves the endpoint and takes it away; a port in use or a typo
# stops rfsd at start with a message that says so.
test_reload_and_errors()
{
	local p2 out i
	setup 0
	p2=$(free_port) || fail "can't pick a port"
	printf '[global]\nmetrics_listen = [::1]:%s\n' "$p2" > "$LAB_DIR/rfsd.conf"
	kill -HUP "$RFSD_PID"
	for ((i = 0; i < 50; i++)); do
		curl -s --max-time 2 -o /dev/null "http://[::1]:$p2/metrics" && break
		sleep 0.1
	done
	# (to a file: grep -q would close the pipe on curl)
	scrape "http://[::1]:$p2/metrics" > "$LAB_DIR/v6.prom"
	grep -q '^rfs_build_info{' "$LAB_DIR/v6.prom" ||
		fail "no metrics on [::1]:$p2 after SIGHUP"
	curl -s --max-time 2 -o /dev/null "$MURL" &&
		fail "metrics still served on the old address after SIGHUP"
	: > "$LAB_DIR/rfsd.conf"
	# wait for rfsd to say it let the address go, not a fixed time: a
	# slow machine may not have re-read its config by then
	kill -HUP "$RFSD_PID"
	for ((i = 0; i < 200; i++)); do
		grep -q "no longer serving metrics on \[::1\]:$p2" "$RFSD_LOG" && break
		sleep 0.1
	done
	grep -q "no longer serving metrics on \[::1\]:$p2" "$RFSD_LOG" ||
		fail "rfsd did not say it stopped serving [::1]:$p2 20 s after SIGHUP: $(tail -n 3 "$RFSD_LOG")"
	curl -s --max-time 2 -o /dev/null "http://[::1]:$p2/metrics" &&
		fail "metrics still served after metrics_listen was removed"
	ctl status >/dev/null || fail "rfsd does not answer after the reloads"
	lab_stop_rfsd

	# a second rfsd can't take a port in use: it says so and exits
	lab_bg "$LAB_PY" -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$MPORT"
	sleep 0.5
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n' "$MPORT" > "$LAB_DIR/rfsd.conf"
	out=$(timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" 2>&1) && fail "rfsd started on a port in use"
	grep -q "can't serve metrics on '127.0.0.1:$MPORT': Address already in use" <<< "$out" ||
		fail "rfsd's message for a port in use: $out"
	printf '[global]\nmetrics_listen = localhost:9464\n' > "$LAB_DIR/rfsd.conf"
	out=$(timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" 2>&1) && fail "rfsd started with metrics_listen = localhost:9464"
	grep -q "rfsd.conf:2': metrics_listen 'localhost:9464' is not IPV4:PORT or \[IPV6\]:PORT" <<< "$out" ||
		fail "rfsd's message for a bad metrics_listen: $out"
}

# Scrapes within a second of a snapshot get its text: a burst of them
# gathers once (rfsd -v logs each gathering), and a second later the
# next scrape gathers anew.
test_snapshot_shared()
{
	local n0 n1 n2 i
	setup 0
	sleep 1.1
	n0=$(grep -c "metrics: gathered a snapshot" "$RFSD_LOG")
	for i in 1 2 3 4 5 6 7 8; do
		scrape > "$LAB_DIR/burst.$i.prom"
	done
	n1=$(grep -c "metrics: gathered a snapshot" "$RFSD_LOG")
	# a burst may straddle one snapshot's end: two at most
	[ $((n1 - n0)) -ge 1 ] && [ $((n1 - n0)) -le 2 ] ||
		fail "8 scrapes in a burst gathered $((n1 - n0)) snapshots, want 1 or 2"
	cmp -s "$LAB_DIR/burst.1.prom" "$LAB_DIR/burst.2.prom" ||
		[ $((n1 - n0)) -eq 2 ] ||
		fail "two scrapes of one snapshot differ"
	sleep 1.1
	scrape > /dev/null
	n2=$(grep -c "metrics: gathered a snapshot" "$RFSD_LOG")
	[ $((n2 - n1)) -eq 1 ] ||
		fail "a scrape a second later gathered $((n2 - n1)) snapshots, want 1"
	say "8 scrapes: $((n1 - n0)) snapshot(s); a second later: 1 more"
}

# One address holds 4 connections at most: a fifth is closed at once;
# once they go, scrapes are served again.
test_per_peer_limit()
{
	local out
	setup 0
	out=$("$LAB_PY" - "$MPORT" <<-'EOF'
	import socket, sys, time
	port = int(sys.argv[1])
	held = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
	time.sleep(0.3)
	s = socket.create_connection(("127.0.0.1", port))
	s.settimeout(3)
	t0 = time.monotonic()
	try:
	    closed = s.recv(4096) == b""
	except ConnectionResetError:
	    closed = True
	except socket.timeout:
	    closed = False
	print("closed" if closed else "open", round(time.monotonic() - t0, 1))
	EOF
	) || fail "the held connections failed: $out"
	[ "${out%% *}" = closed ] ||
		fail "a fifth connection from one address was kept ($out)"
	scrape > /dev/null
	say "a fifth connection from 127.0.0.1: closed after ${out#* }s; then a scrape"
}

# A scraper that sends its request one byte a second is never idle: it
# is cut RFSD_METRICS_DEADLINE (10) s after it connected all the same.
test_request_deadline()
{
	local t
	setup 0
	t=$("$LAB_PY" - "$MPORT" <<-'EOF'
	import select, socket, sys, time
	port = int(sys.argv[1])
	s = socket.create_connection(("127.0.0.1", port))
	req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 64
	t0 = time.monotonic()
	for b in req:
	    try:
	        s.send(bytes([b]))
	    except OSError:
	        break
	    r, _, _ = select.select([s], [], [], 1)
	    if r:
	        try:
	            if s.recv(4096) == b"":
	                break
	        except OSError:
	            break
	print(round(time.monotonic() - t0, 1))
	EOF
	)
	awk -v t="$t" 'BEGIN { exit !(t >= 9 && t <= 13) }' ||
		fail "a trickling scraper was cut after ${t}s, want about 10 s"
	scrape > /dev/null
	say "a scraper trickling its request was cut after ${t}s"
}

# A non-loopback address is served, since the config names it, with a
# warning that names it; loopback gets none.
test_not_loopback_warned()
{
	local port addr
	lab_trap
	lab_up
	lab_init
	port=$(free_port) || fail "can't pick a port"
	addr=$LAB_IP4_A:$port
	printf '[global]\nmetrics_listen = %s\n' "$addr" > "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	grep -qF "WARNING: metrics_listen '$addr' is not a loopback address" "$RFSD_LOG" ||
		fail "no warning for metrics_listen = $addr"
	curl -sS --max-time 10 --fail -o /dev/null "http://$addr/metrics" ||
		fail "can't scrape http://$addr/metrics"
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n' "$port" > "$LAB_DIR/rfsd.conf"
	lab_signal "$RFSD_PID" HUP
	lab_wait_log "serving metrics on http://127.0.0.1:$port/metrics" ||
		fail "rfsd did not move to loopback"
	[ "$(grep -c "is not a loopback address" "$RFSD_LOG")" = 1 ] ||
		fail "loopback warned too"
	say "$(grep -F "is not a loopback address" "$RFSD_LOG" | head -n 1)"
}

# The listening socket systemd passes (rfsd-metrics.socket; here
# systemd-socket-activate, which sets LISTEN_FDS and LISTEN_PID as PID 1
# does, and like it starts rfsd at the first connection) is served, the
# scrape that started rfsd first, and wins over metrics_listen, which is
# left unopened and said so; of two sockets passed rfsd serves the first
# and closes the other.  A reload keeps serving it.  (test_systemd.sh
# runs it under the unit, where rfsd can open no IP socket of its own.)
test_socket_from_systemd()
{
	local port cfg_port
	lab_need systemd-socket-activate
	lab_trap
	lab_up
	lab_init
	port=$(free_port) || fail "can't pick a port"
	cfg_port=$(free_port) || fail "can't pick a port"
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n' "$cfg_port" \
		> "$LAB_DIR/rfsd.conf"
	printf '#!/bin/sh\nexec systemd-socket-activate -l 127.0.0.1:%s -l [::1]:%s %s "$@"\n' \
		"$port" "$port" "$RFSD" > "$LAB_DIR/rfsd-activated"
	chmod +x "$LAB_DIR/rfsd-activated"
	lab_bg "$LAB_DIR/rfsd-activated" --socket "$RFS_SOCK" \
		--pin-dir "$RFS_PIN" --config "$LAB_DIR/rfsd.conf" -v \
		>> "$RFSD_LOG" 2>&1
	RFSD_PID=$LAB_BG_PID
	lab_wait_log "Listening on \[::1\]:$port" ||
		fail "systemd-socket-activate did not listen on $port"
	curl -sS --max-time 30 --fail "http://127.0.0.1:$port/metrics" \
		> "$LAB_DIR/first.prom" ||
		LAB_LOG_LINES=20 fail "the scrape that starts rfsd got no metrics"
	grep -q '^rfs_build_info{' "$LAB_DIR/first.prom" ||
		fail "the scrape that started rfsd got no rfs_build_info"
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	sleep 1.1	# past the first scrape's snapshot
	scrape "http://127.0.0.1:$port/metrics" > "$LAB_DIR/passed.prom"
	grep -q "^rfs_interface_attached{interface=\"$LAB_A\"," "$LAB_DIR/passed.prom" ||
		fail "the scrape of the passed socket does not show $LAB_A attached"
	promtool_ok "$LAB_DIR/passed.prom" "/metrics on the passed socket"
	grep -qF "serving metrics on http://127.0.0.1:$port/metrics (the socket systemd passed)" "$RFSD_LOG" ||
		fail "rfsd did not say it serves the passed socket"
	grep -qF "metrics_listen '127.0.0.1:$cfg_port' ignored: systemd passed rfsd a socket for /metrics" "$RFSD_LOG" ||
		fail "rfsd did not say metrics_listen was ignored"
	curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$cfg_port/metrics" &&
		fail "metrics_listen was opened beside the passed socket"
	grep -q "closing fd 4 systemd passed: rfsd serves /metrics on one listening TCP socket" "$RFSD_LOG" ||
		fail "rfsd did not say it closed the second socket"
	curl -s --max-time 2 -o /dev/null "http://[::1]:$port/metrics" &&
		fail "the second socket passed is still served"
	lab_signal "$RFSD_PID" HUP
	lab_wait_log "reloading config" || fail "rfsd did not reload"
	scrape "http://127.0.0.1:$port/metrics" > /dev/null
	say "served /metrics on the passed 127.0.0.1:$port, not metrics_listen's $cfg_port"
}

# The child of rfsd that serves /metrics (rfsd-http), or nothing.
http_pid()
{
	local p
	for p in $(cat /proc/"$RFSD_PID"/task/*/children 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = rfsd-http ] && echo "$p"
	done
}

# libmicrohttpd parses in rfsd-http, a child that holds no capability
# (started by hand as root: none in its bounding set either), can't gain
# one, runs as nobody under its system call filter and serves scrapes;
# killed, it is started again and the port answers.  Status names it
# (http_pid), the new one too.
test_http_unprivileged()
{
	local pid new st f v i
	setup 0
	pid=$(http_pid)
	[ -n "$pid" ] || fail "no rfsd-http child of rfsd $RFSD_PID"
	v=$(ctlj status | jget 'd["http_pid"]')
	[ "$v" = "$pid" ] || fail "status says http_pid $v, the child is $pid"
	st=$(cat "/proc/$pid/status")
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' <<<"$st")
		[ $((16#$v)) -eq 0 ] || fail "rfsd-http $pid has $f $v, want none"
	done
	v=$(awk '$1 == "Uid:" { print $2 }' <<<"$st")
	[ "$v" = "$(id -u nobody)" ] || fail "rfsd-http $pid runs as uid $v, want nobody"
	v=$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$st")
	[ "$v" = 1 ] || fail "rfsd-http $pid has NoNewPrivs $v"
	v=$(awk '$1 == "Seccomp:" { print $2 }' <<<"$st")
	[ "$v" = 2 ] || fail "rfsd-http $pid has Seccomp ${v:-?}, want 2 (filter)"
	for i in 1 2; do
		scrape > "$LAB_DIR/child.prom"
		grep -q "^rfs_interface_attached{interface=\"$LAB_A\"," "$LAB_DIR/child.prom" ||
			fail "a scrape through rfsd-http does not show $LAB_A"
		sleep 1.1	# a fresh snapshot the second time
	done
	[ "$(http_pid)" = "$pid" ] || fail "rfsd-http died while serving"
	kill -KILL "$pid"
	for i in $(seq 1 50); do
		new=$(http_pid)
		[ -n "$new" ] && [ "$new" != "$pid" ] && break
		new=
		sleep 0.1
	done
	[ -n "$new" ] || fail "no new rfsd-http 5 s after killing $pid"
	lab_wait_log "metrics server (pid $pid) killed by signal 9; restarting it" ||
		fail "no log line about the restart"
	scrape > /dev/null
	v=$(ctlj status | jget 'd["http_pid"]')
	[ "$v" = "$new" ] || fail "status says http_pid $v after the restart, the child is $new"
	say "rfsd-http $pid: uid nobody, no capabilities, Seccomp 2; killed, $new serves"
}

# ----------------------------------------------------------------- runner

lab_trap
lab_require_root
lab_need_bins
lab_need ip ethtool taskset curl promtool "$LAB_PY"
lab_run_tests test_metrics "${*:-$ALL_TESTS}"
