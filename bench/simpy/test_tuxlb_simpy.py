"""Tests of the SimPy reference model: run with
    /usr/bin/python3 -m unittest discover -s bench/simpy -v
"""

import contextlib
import io
import json
import os
import unittest

import tuxlb_simpy as tx

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "..", "scenarios")


def params(**over):
    """Run parameters like read_scenario's, for a small hand-made system."""
    p = {
        "name": "test",
        "netload": {"SITE1": 100, "SITE2": 100},
        "services": {"SVC": (50, 50, 5.0)},
        "streams": [],
        "duration_ms": 0.0,
        "latency_ms": 0.5,
        "reset_ms": 120000.0,
        "seed": 1,
    }
    p.update(over)
    return p


def req(seq, prio):
    return tx.Request(seq, "SVC", None, 0, 1000, prio, 50)


class RoundUS(unittest.TestCase):
    def test_rounding(self):
        cases = [(0.0, 0), (0.0005, 1), (0.0004, 0), (2.5, 2500), (1.2345, 1235), (0.5, 500)]
        for ms, want in cases:
            got = tx.round_us(ms)
            self.assertEqual(got, want, "round_us(%r): got %d, want %d" % (ms, got, want))


class QueueOrder(unittest.TestCase):
    def busy_queue(self):
        sim = tx.Simulation(params(), [("SITE1", "GRP1", 1)])
        srv = sim.servers[0]
        srv.busy = True
        return sim, srv.queue

    def test_priority_then_fifo_and_every_tenth_oldest(self):
        sim, q = self.busy_queue()
        # Oldest is low priority; ten high-priority requests come after it.
        q.put(req(1, 10), 0, sim)
        for seq in range(2, 13):
            q.put(req(seq, 90), seq, sim)
        got = [q.take(100).seq for _ in range(12)]
        want = [2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 11, 12]
        self.assertEqual(got, want, "hand-off order: got %s, want %s" % (got, want))

    def test_start_at_once_counts_as_a_handoff(self):
        sim = tx.Simulation(params(), [("SITE1", "GRP1", 1)])
        q = sim.queues[0]
        q.put(req(1, 50), 0, sim)  # idle server: starts at once, hand-off 1
        for seq, prio in [(2, 10)] + [(s, 90) for s in range(3, 13)]:
            q.put(req(seq, prio), seq, sim)
        got = [q.take(100).seq for _ in range(9)]
        # Hand-offs 2..9 by priority, hand-off 10 the oldest (seq 2, PRIO 10).
        want = [3, 4, 5, 6, 7, 8, 9, 10, 2]
        self.assertEqual(got, want, "hand-off order: got %s, want %s" % (got, want))

    def test_waiting_statistics(self):
        sim, q = self.busy_queue()
        q.put(req(1, 50), 0, sim)
        q.put(req(2, 50), 1000, sim)
        q.take(3000)
        q.take(4000)
        # 1 waiting over [0,1000), 2 over [1000,3000), 1 over [3000,4000).
        self.assertEqual((q.max_len, q.area, q.waiting), (2, 6000, 0))


class Choose(unittest.TestCase):
    def two_busy_sites(self):
        sim = tx.Simulation(params(), [("SITE1", "GRP1", 1), ("SITE2", "GRP2", 1)])
        for srv in sim.servers:
            srv.busy = True
        return sim

    def charge(self, sim, m):
        q, charge = sim.choose(m, 50)
        sim.counters[m.index][q.index] += charge
        return q.name

    def test_admin_guide_three_local_for_one_remote(self):
        sim = self.two_busy_sites()
        got = [self.charge(sim, sim.machines[0]) for _ in range(8)]
        want = ["GRP1/1"] * 3 + ["GRP2/1"] + ["GRP1/1"] * 3 + ["GRP2/1"]
        self.assertEqual(got, want, "choices: got %s, want %s" % (got, want))
        self.assertEqual(sim.counters[0], [300, 300], "SITE1 counters")
        self.assertEqual(sim.counters[1], [0, 0], "SITE2 keeps its own counters")

    def test_idle_local_first_whatever_the_counters(self):
        sim = self.two_busy_sites()
        sim.counters[0] = [10_000, 0]
        sim.servers[0].busy = False
        got = self.charge(sim, sim.machines[0])
        self.assertEqual(got, "GRP1/1", "got %s, want the idle local server" % got)

    def test_idle_remote_server_is_not_preferred(self):
        sim = self.two_busy_sites()
        sim.servers[1].busy = False  # GRP2/1 idle, but remote for SITE1
        sim.counters[0] = [200, 0]   # local 250 vs remote 150
        self.assertEqual(self.charge(sim, sim.machines[0]), "GRP2/1")
        sim.counters[0] = [50, 0]    # local 100 vs remote 150
        self.assertEqual(self.charge(sim, sim.machines[0]), "GRP1/1")

    def test_cost_divides_by_servers_on_queue_exactly(self):
        sim = self.two_busy_sites()
        m = sim.machines[0]
        a, b = sim.queues
        extra = tx.Server(sim.env, 2, "GRP1/2", m)
        extra.busy = True
        a.servers.append(extra)
        a.n = 2
        # a: 151/2 + 50 = 125.5; b: 0 + 50 + 100 = 150 -> a. Then 301/2+50 = 200.5 > 150 -> b.
        for counter, want in [(151, "GRP1/1"), (301, "GRP2/1")]:
            sim.counters[0] = [counter, 0]
            got, _ = sim.choose(m, 50)
            self.assertEqual(got.name, want, "counter %d: got %s, want %s" % (counter, got.name, want))


class SameInstant(unittest.TestCase):
    def test_completion_before_new_request(self):
        sim = tx.Simulation(params(), [("SITE1", "GRP1", 1), ("SITE2", "GRP2", 1)])
        env = sim.env
        for srv in sim.servers:
            env.process(sim.server(srv))

        def driver():
            yield tx.OrderedTimeout(env, 0, tx.PRIO_NEW)
            sim.issue("SVC", "SITE1", 0, 1000)   # GRP1/1 busy until t=1000 us
            sim.issue("SVC", "SITE2", 0, 50000)  # GRP2/1 busy until t=50000 us
            sim.counters[0] = [10_000, 0]        # the remote queue is far cheaper
            # Scheduled before GRP1/1's completion, yet must run after it.
            yield tx.OrderedTimeout(env, 1000, tx.PRIO_NEW)
            sim.issue("SVC", "SITE1", 1000, 10)

        env.process(driver())
        env.run()
        got = [s.requests for s in sim.servers]
        self.assertEqual(got, [2, 1], "requests per server: got %s, want GRP1/1 idle again at t=1000" % got)


class Run(unittest.TestCase):
    def run_mp(self, **over):
        p = tx.read_scenario(os.path.join(SCENARIOS, "mp-standard.json"), 20000, None)
        p.update(over)
        sim = tx.Simulation(p)
        sim.run()
        return sim, tx.result(sim)

    def test_conservation_and_load(self):
        sim, res = self.run_mp()
        r = res["requests"]
        self.assertEqual(r["completed"], r["issued"], "completed vs issued")
        served = sum(s["requests"] for s in res["servers"])
        self.assertEqual(served, r["issued"], "served by servers vs issued")
        for m in res["machines"]:
            self.assertEqual(m["local"] + m["sent"], m["issued"], "%s local+sent" % m["lmid"])
        sent = sum(m["sent"] for m in res["machines"])
        received = sum(m["received"] for m in res["machines"])
        self.assertEqual(sent, received, "sent vs received")
        util = sum(s["utilization"] for s in res["servers"]) / len(res["servers"])
        self.assertTrue(0.75 < util < 0.85, "mean utilization %.3f, want about 0.8" % util)
        self.assertTrue(18000 < r["issued"] < 22000, "issued %d, want about 20000" % r["issued"])

    def test_styles_agree(self):
        _, a = self.run_mp(style="events")
        _, b = self.run_mp(style="process")
        self.assertEqual(json.dumps(a), json.dumps(b), "event style and process style differ")

    def test_counter_resets(self):
        sim, res = self.run_mp(reset_ms=1000.0)
        got = res["mp_resets_ms"][:3]
        self.assertEqual(got, [1000.0, 2000.0, 3000.0], "reset times")
        self.assertLessEqual(res["mp_resets_ms"][-1], res["span_ms"], "no reset after the last event")

    def test_other_topologies_are_refused(self):
        err = io.StringIO()
        with self.assertRaises(SystemExit) as cm, contextlib.redirect_stderr(err):
            tx.read_scenario(os.path.join(SCENARIOS, "shm-standard.json"), None, None)
        self.assertIn("MODEL MP", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
