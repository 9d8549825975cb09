#!/usr/bin/python3
"""The standard MP benchmark scenario of tuxlb, written in SimPy.

This is the reference model that tuxlb's Go engine is measured against
(the performance targets): the same Tuxedo MP, LDBAL=Y "round-robin" load balancing as
docs/engine.md "Choosing a queue", with the rules of "Queues, servers and time", written the
way a SimPy user would write it: one process per arrival stream, one process
per server instance, events to hand work to idle servers, and timeouts for
service and network crossings.

The topology of bench/scenarios/mp-standard.json is hard-coded (two machines,
one group each, eight single-server queues per group, every server
advertising every service); the script checks that the scenario still says so.
Everything else is read from the scenario: LOAD and PRIO of the services and
NETLOAD of the machines from its UBBCONFIG, service times (exponential),
Poisson streams, duration, network latency, the counter reset period and the
seed.

Usage:
    /usr/bin/python3 bench/simpy/tuxlb_simpy.py bench/scenarios/mp-standard.json
    /usr/bin/python3 bench/simpy/tuxlb_simpy.py --requests 100000 SCENARIO.json
    /usr/bin/python3 bench/simpy/tuxlb_simpy.py --json SCENARIO.json

Random streams differ from the Go engine's, so results agree in their means,
not byte for byte.
"""

import argparse
import heapq
import json
import math
import random
import sys
import time
from collections import deque

import simpy
from simpy.events import Timeout

from scenario import TOPOLOGY, read_scenario


# Event order within one instant (docs/engine.md): counter reset, completions (scan
# order), network arrivals (issue order), new requests (stream order). SimPy
# sorts same-time events by priority, then by scheduling order; its own
# URGENT (0) and NORMAL (1) events, such as a server's wake-up, come first.
PRIO_RESET = 0
PRIO_DONE = 1 << 40
PRIO_NET = 2 << 40
PRIO_NEW = 3 << 40

OLDEST_EVERY = 10  # every 10th hand-off of a queue takes its oldest request


class OrderedTimeout(Timeout):
    """A Timeout with an explicit same-instant priority (lower runs first)."""

    def __init__(self, env, delay, priority, value=None):
        self.env = env
        self.callbacks = []
        self._value = value
        self._delay = delay
        self._ok = True
        env.schedule(self, priority, delay)


def round_us(ms):
    """Milliseconds to whole microseconds, halves away from zero (ms >= 0)."""
    return math.floor(ms * 1000.0 + 0.5)


# --- the model ---------------------------------------------------------------


class Request:
    __slots__ = ("seq", "service", "origin", "issue", "svc_us", "prio", "load",
                 "queue", "remote", "enq", "start", "taken", "done")

    def __init__(self, seq, service, origin, issue, svc_us, prio, load):
        self.seq, self.service, self.origin, self.issue = seq, service, origin, issue
        self.svc_us, self.prio, self.load = svc_us, prio, load
        self.taken = False


class Server:
    """One server instance: busy while it processes a request."""

    def __init__(self, env, index, name, machine):
        self.index, self.name, self.machine = index, name, machine
        self.queue = None
        self.busy = False
        self.wake = env.event()  # succeeds with the request handed to this idle server
        self.requests = self.chosen = self.busy_us = 0


class Queue:
    """A Tuxedo request queue: priority order, FIFO among equals, and every
    10th hand-off the oldest waiting request whatever its priority."""

    def __init__(self, index, name, machine, netload, servers):
        self.index, self.name, self.machine, self.netload = index, name, machine, netload
        self.servers = servers
        self.n = len(servers)
        self.by_prio = []      # heap of (-prio, enqueue order, request)
        self.by_age = deque()  # requests in enqueue order
        self.waiting = 0
        self.entered = 0
        self.handoffs = 0
        self.max_len = 0
        self.area = 0          # integral of waiting requests over time (us)
        self.last = 0

    def _count(self, now, delta):
        self.area += self.waiting * (now - self.last)
        self.last = now
        self.waiting += delta

    def put(self, req, now, sim):
        """Enqueue req; it starts at once on the first idle server, if any."""
        req.enq = now
        self.entered += 1
        for srv in self.servers:
            if not srv.busy:
                self.handoffs += 1
                sim.start(srv, req, now)
                srv.wake.succeed(req)
                return
        self._count(now, 1)
        self.max_len = max(self.max_len, self.waiting)
        heapq.heappush(self.by_prio, (-req.prio, self.entered, req))
        self.by_age.append(req)

    def take(self, now):
        """The next request for a server that just finished, or None."""
        if not self.waiting:
            return None
        self.handoffs += 1
        self._count(now, -1)
        if self.handoffs % OLDEST_EVERY == 0:
            req = self.by_age.popleft()
            while req.taken:
                req = self.by_age.popleft()
        else:
            req = heapq.heappop(self.by_prio)[2]
            while req.taken:
                req = heapq.heappop(self.by_prio)[2]
        req.taken = True
        return req


class Machine:
    def __init__(self, index, lmid, netload):
        self.index, self.lmid, self.netload = index, lmid, netload
        self.servers = []  # local instances in scan order
        self.issued = self.local = self.sent = self.received = self.served = 0


class Simulation:
    """The MP, LDBAL=Y system of one scenario, played forward by run()."""

    def __init__(self, p, topology=TOPOLOGY):
        self.p = p
        self.env = env = simpy.Environment()
        self.machines, self.servers, self.queues = [], [], []
        for lmid, group, count in topology:
            m = Machine(len(self.machines), lmid, p["netload"][lmid])
            self.machines.append(m)
            for srvid in range(1, count + 1):
                name = "%s/%d" % (group, srvid)
                srv = Server(env, len(self.servers), name, m)
                q = Queue(len(self.queues), name, m, m.netload, [srv])
                srv.queue = q
                m.servers.append(srv)
                self.servers.append(srv)
                self.queues.append(q)
        self.lmid = {m.lmid: m for m in self.machines}
        # C_m(q): what machine m has charged queue q since the last reset.
        self.counters = [[0] * len(self.queues) for _ in self.machines]
        self.latency_us = round_us(p["latency_ms"])
        self.seq = 0
        self.sources_left = len(p["streams"])
        self.outstanding = 0
        self.last_us = 0
        self.resets = []
        self.waits, self.responses = [], []
        self.blocktime_us = 60_000_000  # SCANUNIT x BLOCKTIME defaults: 60 s
        self.timed_out = 0
        # The textbook style: one process per request (see --style).
        self.per_request = p.get("style") == "process"

    # Dispatch (docs/engine.md, MP, LDBAL=Y) -----------------------------------------

    def choose(self, m, load):
        """The queue a request issued on machine m goes to, and its charge."""
        for srv in m.servers:  # 1. the first idle local candidate
            if not srv.busy:
                srv.chosen += 1
                return srv.queue, load
        counters = self.counters[m.index]  # 2. least C_m(q)/n(q) + L + N(q)
        best = best_num = best_den = best_charge = None
        for q in self.queues:
            charge = load if q.machine is m else load + q.netload
            num = counters[q.index] + charge * q.n  # cost = num / n(q), exact
            if best is None or num * best_den < best_num * q.n:
                best, best_num, best_den, best_charge = q, num, q.n, charge
        best.servers[0].chosen += 1
        return best, best_charge

    def issue(self, service, origin, issue_us, svc_us):
        self.seq += 1
        self.outstanding += 1
        load, prio, _ = self.p["services"][service]
        m = self.lmid[origin]
        req = Request(self.seq, service, m, issue_us, svc_us, prio, load)
        q, charge = self.choose(m, load)
        self.counters[m.index][q.index] += charge  # 3. C_m(chosen) += L + N
        req.queue = q
        m.issued += 1
        req.remote = q.machine is not m
        self.count_route(m, q, req.remote)
        if self.per_request:
            self.env.process(self.client(req))
        elif not req.remote or self.latency_us == 0:
            q.put(req, issue_us, self)  # a latency of 0 enters at once
        else:
            ev = OrderedTimeout(self.env, self.latency_us, PRIO_NET + self.seq, req)
            ev.callbacks.append(self.arrive)

    def count_route(self, m, q, remote):
        if remote:
            m.sent += 1
            q.machine.received += 1
        else:
            m.local += 1

    def client(self, req):
        """The textbook style: the request's own process crosses the network,
        waits for its server and for the reply's crossing back."""
        env = self.env
        if req.remote and self.latency_us:
            yield OrderedTimeout(env, self.latency_us, PRIO_NET + req.seq)
        req.done = env.event()
        req.queue.put(req, env.now, self)
        yield req.done
        if req.remote and self.latency_us:
            yield env.timeout(self.latency_us)
        self.reply(req, env.now)

    def arrive(self, ev):
        req = ev.value
        req.queue.put(req, self.env.now, self)

    # Servers ------------------------------------------------------------------

    def start(self, srv, req, now):
        srv.busy = True
        req.start = now
        self.waits.append(now - req.enq)

    def finish(self, srv, req, now):
        srv.requests += 1
        srv.busy_us += req.svc_us
        srv.machine.served += 1
        if self.per_request:
            req.done.succeed()
        else:
            self.reply(req, now + self.latency_us if req.remote else now)

    def reply(self, req, reply):
        response = reply - req.issue
        self.responses.append(response)
        if response > self.blocktime_us:
            self.timed_out += 1
        if reply > self.last_us:
            self.last_us = reply
        self.outstanding -= 1

    def server(self, srv):
        env, q, prio = self.env, srv.queue, PRIO_DONE + srv.index
        req = yield srv.wake
        while True:
            yield OrderedTimeout(env, req.svc_us, prio)
            now = env.now
            self.finish(srv, req, now)
            req = q.take(now)
            if req is not None:
                self.start(srv, req, now)
                continue
            srv.busy = False
            srv.wake = env.event()
            req = yield srv.wake

    # Workload and counter resets ----------------------------------------------

    def source(self, index, service, origin, rate_per_s):
        env, p = self.env, self.p
        rng = random.Random("%d/%d" % (p["seed"], index))
        rate_per_ms = rate_per_s / 1000.0
        mean_ms = p["services"][service][2]
        end_us = round_us(p["duration_ms"])
        prio = PRIO_NEW + index
        t = 0.0
        while True:
            t += rng.expovariate(rate_per_ms)
            issue_us = round_us(t)
            if issue_us >= end_us:
                break
            svc_us = round_us(rng.expovariate(1.0 / mean_ms))
            yield OrderedTimeout(env, issue_us - env.now, prio)
            self.issue(service, origin, issue_us, svc_us)
        self.sources_left -= 1

    def reset(self):
        period, k = round_us(self.p["reset_ms"]), 1
        while True:
            yield OrderedTimeout(self.env, k * period - self.env.now, PRIO_RESET)
            if self.sources_left == 0 and self.outstanding == 0:
                return
            for c in self.counters:
                c[:] = [0] * len(c)
            self.resets.append(self.env.now)
            k += 1

    def run(self):
        env = self.env
        for srv in self.servers:
            env.process(self.server(srv))
        for i, (service, origin, rate) in enumerate(self.p["streams"]):
            env.process(self.source(i, service, origin, rate))
        if self.p["reset_ms"] > 0:
            env.process(self.reset())
        env.run()


# --- statistics --------------------------------------------------------------


def summary(values_us):
    """mean, p50, p95, p99, max in ms (nearest-rank percentiles)."""
    if not values_us:
        return {"count": 0, "mean": 0, "p50": 0, "p95": 0, "p99": 0, "max": 0}
    v = sorted(values_us)
    n = len(v)

    def pct(p):
        return v[max(0, math.ceil(p / 100 * n) - 1)] / 1000.0

    return {"count": n, "mean": sum(v) / n / 1000.0, "p50": pct(50), "p95": pct(95),
            "p99": pct(99), "max": v[-1] / 1000.0}


def result(sim):
    span = sim.last_us or 1
    issued = sim.seq
    return {
        "name": sim.p["name"],
        "span_ms": span / 1000.0,
        "requests": {"issued": issued, "completed": len(sim.responses),
                     "failed": {}, "timed_out": sim.timed_out},
        "wait_ms": summary(sim.waits),
        "response_ms": summary(sim.responses),
        "servers": [{"id": s.name, "lmid": s.machine.lmid, "requests": s.requests,
                     "chosen": s.chosen, "busy_ms": s.busy_us / 1000.0,
                     "utilization": s.busy_us / span} for s in sim.servers],
        "queues": [{"name": q.name, "enqueued": q.entered, "max_length": q.max_len,
                    "avg_length": (q.area + q.waiting * (span - q.last)) / span}
                   for q in sim.queues],
        "machines": [{"lmid": m.lmid, "netload": m.netload, "issued": m.issued,
                      "served": m.served, "local": m.local, "sent": m.sent,
                      "received": m.received} for m in sim.machines],
        "mp_resets_ms": [t / 1000.0 for t in sim.resets],
    }


def print_text(res, out):
    r = res["requests"]
    out.write("%s\n" % res["name"])
    out.write("span %.3f ms  issued %d  completed %d  timed_out %d\n"
              % (res["span_ms"], r["issued"], r["completed"], r["timed_out"]))
    for key in ("wait_ms", "response_ms"):
        s = res[key]
        out.write("%-12s mean %.4f  p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n"
                  % (key, s["mean"], s["p50"], s["p95"], s["p99"], s["max"]))
    out.write("%-8s %-6s %9s %9s %6s\n" % ("server", "lmid", "requests", "chosen", "util"))
    for s in res["servers"]:
        out.write("%-8s %-6s %9d %9d %6.4f\n"
                  % (s["id"], s["lmid"], s["requests"], s["chosen"], s["utilization"]))
    utils = [s["utilization"] for s in res["servers"]]
    out.write("mean utilization %.4f\n" % (sum(utils) / len(utils)))
    for m in res["machines"]:
        out.write("%s: issued %d served %d local %d sent %d received %d\n"
                  % (m["lmid"], m["issued"], m["served"], m["local"], m["sent"], m["received"]))
    out.write("counter resets at %s ms\n" % res["mp_resets_ms"])


def main(argv=None):
    wall0 = time.perf_counter()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", help="scenario JSON (bench/scenarios/mp-standard.json), - for stdin")
    ap.add_argument("--requests", type=int, help="scale the duration to about this many requests")
    ap.add_argument("--duration-ms", type=float, help="override workload.generate.duration_ms")
    ap.add_argument("--seed", type=int, help="override the scenario's seed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--style", choices=("events", "process"), default="events",
                    help="events (default): requests are data handed between server processes; "
                    "process: the textbook style, one SimPy process per request")
    args = ap.parse_args(argv)
    p = read_scenario(args.scenario, args.requests, args.duration_ms)
    p["style"] = args.style
    if args.seed is not None:
        p["seed"] = args.seed
    sim = Simulation(p)
    sim0 = time.perf_counter()
    sim.run()
    sim_s = time.perf_counter() - sim0
    res = result(sim)
    wall_s = time.perf_counter() - wall0
    n = res["requests"]["issued"]
    res["wall"] = {"style": args.style, "simpy": simpy.__version__, "python": sys.version.split()[0],
                   "simulate_s": sim_s, "total_s": wall_s,
                   "requests_per_s": n / wall_s, "simulate_requests_per_s": n / sim_s}
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(res, sys.stdout)
    sys.stderr.write("%d requests in %.2f s wall (%.2f s simulating): %.0f requests/s end to end, "
                     "%.0f requests/s simulating (SimPy %s, Python %s)\n"
                     % (n, wall_s, sim_s, n / wall_s, n / sim_s, simpy.__version__,
                        sys.version.split()[0]))


if __name__ == "__main__":
    main()
