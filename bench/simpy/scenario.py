"""Reading the scenario JSON for the SimPy reference model: the few values
of its UBBCONFIG and workload that the model needs, and a check that the
topology is the one tuxlb_simpy.py hard-codes (that of mp-standard.json).
"""

import json
import re
import sys

# Hard-coded topology of mp-standard.json: machines in *MACHINES order, and
# per machine its group and the number of single-server queues (MIN=8).
TOPOLOGY = [("SITE1", "GRP1", 8), ("SITE2", "GRP2", 8)]


def fail(msg):
    """Stop with a message that names the scenario field at fault."""
    sys.exit("tuxlb_simpy: " + msg)


def ubb_sections(text):
    """Split a UBBCONFIG into {section: [logical lines]}, comments dropped."""
    sections, cur = {}, None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if line.startswith("*"):
            cur = sections.setdefault(line.strip()[1:].upper(), [])
        elif cur is not None:
            if line[0] in " \t" and cur:
                cur[-1] += " " + line.strip()  # continuation line
            else:
                cur.append(line.strip())
    return sections


def params(line):
    return dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))


def read_ubb(text):
    """The few UBBCONFIG values the model needs, with Tuxedo's defaults."""
    sec = ubb_sections(text)
    res = {}
    for line in sec.get("RESOURCES", []):
        parts = line.split(None, 1)
        res[parts[0].upper()] = parts[1].strip('"') if len(parts) > 1 else ""
    if res.get("MODEL") != "MP" or res.get("LDBAL") != "Y":
        fail("ubbconfig: this model needs MODEL MP and LDBAL Y")
    netload = {}
    for line in sec.get("MACHINES", []):
        p = params(line)
        netload[p.get("LMID", "").strip('"')] = int(p.get("NETLOAD", 0))
    services = {}
    for line in sec.get("SERVICES", []):
        p = params(line)
        services[line.split()[0]] = (int(p.get("LOAD", 50)), int(p.get("PRIO", 50)))
    servers = [params(line) for line in sec.get("SERVERS", [])]
    want = [(g, str(n)) for _, g, n in TOPOLOGY]
    got = [(p.get("SRVGRP"), p.get("MIN")) for p in servers]
    if got != want or any("RQADDR" in p for p in servers):
        fail("ubbconfig *SERVERS: expected one entry per group %s, no RQADDR; got %s" % (want, got))
    scanunit = res.get("SCANUNIT", "10")
    scan_ms = float(scanunit[:-2]) if scanunit.upper().endswith("MS") else float(scanunit) * 1000
    sanity = float(res.get("SANITYSCAN", 120_000 / scan_ms))
    return netload, services, scan_ms * sanity


def read_scenario(path, requests, duration_ms):
    """Parameters of the run, as a dict; exits with a message naming the field."""
    try:
        with open(path) if path != "-" else sys.stdin as fh:
            sc = json.load(fh)
    except (OSError, ValueError) as err:
        fail("%s: %s" % (path, err))
    try:
        return parameters(sc, path, requests, duration_ms)
    except KeyError as err:
        fail("%s: missing field %s" % (path, err))
    except (TypeError, ValueError) as err:
        fail("%s: %s" % (path, err))


def parameters(sc, path, requests, duration_ms):
    netload, loads, reset_ms = read_ubb(sc["ubbconfig"])
    for lmid, _, _ in TOPOLOGY:
        if lmid not in netload:
            fail("ubbconfig *MACHINES: LMID %s missing" % lmid)
    means = {}
    for name, spec in sc.get("services", {}).items():
        dist = spec.get("service_time", {})
        if dist.get("dist") != "exp":
            fail("services.%s.service_time: only exp is modelled" % name)
        means[name] = float(dist["mean_ms"])
    gen = sc["workload"]["generate"]
    streams = []
    for i, st in enumerate(gen["streams"]):
        if st.get("arrivals") != "poisson" or st["service"] not in loads or st["service"] not in means:
            fail("workload.generate.streams[%d]: need a poisson stream of a known service" % i)
        streams.append((st["service"], st.get("origin", TOPOLOGY[0][0]), float(st["rate_per_s"])))
    total_rate = sum(r for _, _, r in streams)
    dur = float(gen["duration_ms"])
    if requests:
        dur = requests / total_rate * 1000.0
    elif duration_ms:
        dur = duration_ms
    tuning = sc.get("tuning") or {}
    return {
        "name": sc.get("name", path),
        "netload": netload,
        "services": {s: (loads[s][0], loads[s][1], means[s]) for s in means},
        "streams": streams,
        "duration_ms": dur,
        "latency_ms": float((sc.get("network") or {}).get("latency_ms", 0)),
        "reset_ms": float(tuning.get("mp_reset_ms", reset_ms)),
        "seed": int(sc.get("seed", 1)),
    }
