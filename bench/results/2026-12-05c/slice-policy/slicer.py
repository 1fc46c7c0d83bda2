#!/usr/bin/env python3
# experiment: give every cpumap kthread SCHED_OTHER with a custom EEVDF
# slice (sched_attr.sched_runtime), re-applied every 0.2 s (kthreads come
# and go with each attach).  usage: slicer.py SLICE_US [--once]
import ctypes, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
SYS_sched_setattr = 314
us = int(sys.argv[1])
attr = struct.pack("=IIQiIQQQII", 56, 0, 0, 0, 0, us * 1000, 0, 0, 0, 0)
buf = ctypes.create_string_buffer(attr, 56)
def pass_once():
    n = 0
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            comm = open(f"/proc/{p}/comm").read().strip()
        except OSError:
            continue
        if not comm.startswith("cpumap/"):
            continue
        try:
            sched = open(f"/proc/{p}/sched").read()
        except OSError:
            continue
        f = dict((l.split(":")[0].strip(), l.split(":")[-1].strip()) for l in sched.splitlines() if ":" in l)
        # only kthreads left as the kernel makes them (SCHED_OTHER nice 0)
        if f.get("policy") != "0" or f.get("prio") != "120" or f.get("se.slice") == str(us * 1000):
            continue
        if libc.syscall(SYS_sched_setattr, int(p), buf, 0) != 0:
            print("setattr", p, comm, os.strerror(ctypes.get_errno()), file=sys.stderr)
        else:
            print(time.strftime("%T"), "slice", us, p, comm, flush=True)
        n += 1
    return n
if "--once" in sys.argv:
    print(pass_once(), "kthreads")
    sys.exit(0)
while True:
    pass_once()
    time.sleep(0.2)
