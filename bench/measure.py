#!/usr/bin/env python3
"""measure.py IN OUT CMD...: runs CMD with stdin IN and stdout OUT ('-' for
none), prints "seconds max_rss_kb exit_status".  One process per
measurement, so ru_maxrss is that command's own peak."""
import resource, subprocess, sys, time
inp, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
fi = open(inp, "rb") if inp != "-" else subprocess.DEVNULL
fo = open(out, "wb") if out != "-" else subprocess.DEVNULL
t = time.perf_counter()
rc = subprocess.call(cmd, stdin=fi, stdout=fo)
dt = time.perf_counter() - t
print("%.4f %d %d" % (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc))
