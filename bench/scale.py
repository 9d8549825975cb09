"""Writes the standard MP scenario scaled to N server instances, N/2 on each
machine (entries of at most 512, SRVIDs 1, 1001, ...), with the streams'
rates multiplied by N/16 so that the load stays at 80%, and the duration
set for about REQUESTS requests: what BenchmarkScale runs (core/bench_scale_test.go).

usage: python3 bench/scale.py bench/scenarios/mp-standard.json N REQUESTS > out.json
"""
import json
import sys

s = json.load(open(sys.argv[1]))
n, reqs = int(sys.argv[2]), float(sys.argv[3])
lines = []
for grp in ("GRP1", "GRP2"):
    left, sid = n // 2, 1
    while left > 0:
        k = min(left, 512)
        lines.append('banksrv     SRVGRP=%s SRVID=%d MIN=%d MAX=%d CLOPT="-s BALANCE,DEPOSIT,TRANSFER,REPORT --"' % (grp, sid, k, k))
        left -= k
        sid += 1000
u = s["ubbconfig"]
s["ubbconfig"] = u[: u.index("*SERVERS\n")] + "*SERVERS\n" + "\n".join(lines) + "\n\n" + u[u.index("*SERVICES"):]
g = s["workload"]["generate"]
for st in g["streams"]:
    st["rate_per_s"] *= n / 16
g["duration_ms"] = reqs / sum(st["rate_per_s"] for st in g["streams"]) * 1000
json.dump(s, sys.stdout)
