"""Writes an MP application grown along one of its dimensions, to measure
how a request's cost grows with it (docs/benchmarks.md, "As the application
grows"): M machines, each with one group of N servers (no RQADDR: a queue
each), every server offering S services (CLOPT -s, at most 50 a server
entry, so S > 50 gives each machine ceil(S/50) entries of N servers), every
service exponential with a mean of 4 ms, and C clients on each machine,
each issuing every service alike after an exponential think time sized so
that the servers are about 70% busy; 0.5 ms of network latency; D
milliseconds of simulated time.

usage: python3 bench/grow.py M S N C D > out.json
"""
import json
import sys

M, S, N, C, D = (int(a) for a in sys.argv[1:6])
ubb = ["*RESOURCES", "IPCKEY 200100", "MASTER SITE1", "MODEL MP", "LDBAL Y", "OPTIONS LAN", "", "*MACHINES"]
ubb += ['node%d LMID=SITE%d NETLOAD=100 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo"' % (m, m) for m in range(1, M + 1)]
ubb += ["", "*GROUPS"] + ["GRP%d LMID=SITE%d GRPNO=%d" % (m, m, m) for m in range(1, M + 1)]
ubb += ["", "*NETWORK"] + ['SITE%d NADDR="//node%d:3050" NLSADDR="//node%d:3051"' % (m, m, m) for m in range(1, M + 1)]
ubb += ["", "*SERVERS"]
names = ["SVC%d" % i for i in range(S)]
for m in range(1, M + 1):
    for k in range(N):
        for j in range(0, S, 50):
            ubb.append('srv%d SRVGRP=GRP%d SRVID=%d CLOPT="-s %s --"' % (j, m, k * 100 + j // 50 + 1, ",".join(names[j : j + 50])))
ubb += ["", "*SERVICES"] + ["%s LOAD=50" % n for n in names]
servers = N * ((S + 49) // 50)  # a machine's servers
rate = 0.7 * servers / 4.0  # requests a millisecond a machine for 70% busy
think = C / rate
clients = [{"name": "m%d" % m, "count": C, "origin": "SITE%d" % m, "think": {"dist": "exp", "mean_ms": round(think, 3)},
            "services": [{"service": n, "weight": 1} for n in names]} for m in range(1, M + 1)]
json.dump({"name": "grown: %d machines, %d services, %d servers a machine, %d clients a machine" % (M, S, servers, C),
           "ubbconfig": "\n".join(ubb) + "\n",
           "services": {n: {"service_time": {"dist": "exp", "mean_ms": 4}} for n in names},
           "network": {"latency_ms": 0.5}, "seed": 1,
           "workload": {"generate": {"duration_ms": D, "clients": clients}}}, sys.stdout)
