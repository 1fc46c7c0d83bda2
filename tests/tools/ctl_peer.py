# SPDX-License-Identifier: GPL-2.0
# A raw peer of rfsd's control socket, for what rfsctl never does
# (tests/integration/test_control_robust.sh).  Every mode ends by itself.
#
#   ctl_peer.py line SOCK TEXT
#	send TEXT and a newline as it is, print the reply line.
#   ctl_peer.py hold SOCK N [--send TEXT] [--ready FILE] [--seconds S]
#	open N connections, send TEXT (no newline: a request never ends)
#	on each if given, touch FILE, then hold them for S seconds (or until
#	SIGTERM); print {"opened": N, "refused": R, "closed": C} where R
#	could not connect and C were closed by rfsd while held.
#   ctl_peer.py first-close SOCK [--seconds S]
#	open one connection, send nothing; print how many seconds rfsd took
#	to close it (null if it did not within S).
#   ctl_peer.py trickle SOCK [--every E] [--seconds S]
#	send a whole request and read its reply, then the next request one
#	byte every E seconds (default 1), never its end; print
#	{"after": T, "said": LINE}: T the seconds from the first byte until
#	rfsd closed the connection (null if it did not within S), LINE the
#	last line it sent.
import argparse, json, os, select, signal, socket, sys, time


def connect(path):
    # a unix socket with a timeout is non-blocking, and its connect()
    # fails at once with EAGAIN while rfsd's backlog is full: wait for
    # room instead, up to 5 s
    end = time.monotonic() + 5
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(path)
            return s
        except BlockingIOError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.01)


def closed_by_peer(s):
    # readable and EOF (or reset): rfsd closed it; a refusal line before
    # the EOF counts as closed too
    r, _, _ = select.select([s], [], [], 0)
    if not r:
        return False
    try:
        while True:
            d = s.recv(65536, socket.MSG_DONTWAIT)
            if not d:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def hold(a):
    conns, refused = [], 0
    for _ in range(a.n):
        try:
            s = connect(a.sock)
            if a.send:
                s.sendall(a.send.encode())
            conns.append(s)
        except OSError:
            refused += 1
    if a.ready:
        with open(a.ready + '.tmp', 'w') as f:
            f.write('%d\n' % os.getpid())
        os.rename(a.ready + '.tmp', a.ready)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    end = time.monotonic() + a.seconds
    while time.monotonic() < end and not stop:
        time.sleep(0.1)
    closed = sum(1 for s in conns if closed_by_peer(s))
    print(json.dumps({'opened': len(conns), 'refused': refused,
                      'closed': closed}))


def first_close(a):
    s = connect(a.sock)
    t0 = time.monotonic()
    s.settimeout(a.seconds)
    try:
        while s.recv(4096):
            pass
        print(json.dumps(round(time.monotonic() - t0, 1)))
    except socket.timeout:
        print('null')
    except OSError:
        print(json.dumps(round(time.monotonic() - t0, 1)))


def trickle(a):
    s = connect(a.sock)
    s.sendall(b'{"cmd":"version"}\n')
    buf = b''
    while not buf.endswith(b'\n'):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    said, t0 = '', time.monotonic()
    text = b'{"cmd":"status"' + b' ' * 4096
    i, after = 0, None
    while time.monotonic() - t0 < a.seconds:
        try:
            if i < len(text):
                s.send(text[i:i + 1])
                i += 1
            r, _, _ = select.select([s], [], [], a.every)
            if r:
                d = s.recv(65536)
                if not d:
                    after = time.monotonic() - t0
                    break
                said = d.decode(errors='replace').strip()
        except OSError:
            after = time.monotonic() - t0
            break
    print(json.dumps({'after': None if after is None else round(after, 1),
                      'said': said}))


def line(a):
    s = connect(a.sock)
    s.sendall(a.text.encode() + b'\n')
    buf = b''
    while not buf.endswith(b'\n'):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    sys.stdout.write(buf.decode(errors='replace'))


p = argparse.ArgumentParser()
p.add_argument('mode', choices=['line', 'hold', 'first-close', 'trickle'])
p.add_argument('sock')
p.add_argument('arg', nargs='?', help='line: TEXT; hold: N')
p.add_argument('--send')
p.add_argument('--ready')
p.add_argument('--seconds', type=float, default=30)
p.add_argument('--every', type=float, default=1)
a = p.parse_args()
if a.mode == 'line':
    a.text = a.arg or ''
else:
    a.n = int(a.arg or 1)
{'line': line, 'hold': hold, 'first-close': first_close,
 'trickle': trickle}[a.mode](a)
