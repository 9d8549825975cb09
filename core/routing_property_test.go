package core

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// refRange is one range of a random criterion, as the property test's own
// reference reads it: integers lo..hi (or the catch-all), a group or "*".
type refRange struct {
	lo, hi   int
	group    string
	catchAll bool
}

// refRoute is the routing step of docs/engine.md written independently of the
// engine: the first range holding v (the catch-all holds anything), or -1.
func refRoute(ranges []refRange, v int) int {
	for i, r := range ranges {
		if r.catchAll || r.lo <= v && v <= r.hi {
			return i
		}
	}
	return -1
}

// randomRouted writes a random routed scenario document: groups on one or
// two machines, servers advertising S in random groups (some with spares),
// a criterion with random integer ranges (overlaps, gaps, `*`, sometimes a
// catch-all), and a trace whose values are missing, in range or outside.
func randomRouted(r *rng.PCG) (doc []byte, ranges []refRange, groupsWithS map[string]bool, trace [][2]string) {
	var b strings.Builder
	model := []string{"SHM", "MP"}[r.IntN(2)]
	nm := 1
	if model == "MP" {
		nm = 2
	}
	fmt.Fprintf(&b, "*RESOURCES\nMODEL %s\nLDBAL %s\nMASTER site1\n*MACHINES\n", model, []string{"N", "Y"}[r.IntN(2)])
	for i := 1; i <= nm; i++ {
		fmt.Fprintf(&b, "n%d LMID=site%d NETLOAD=%d\n", i, i, r.IntN(3)*50)
	}
	ng := 2 + r.IntN(3)
	b.WriteString("*GROUPS\n")
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&b, "G%d LMID=site%d GRPNO=%d\n", g, 1+r.IntN(nm), g)
	}
	b.WriteString("*SERVERS\n")
	groupsWithS = map[string]bool{}
	for k, srvid := 1+r.IntN(5), 1; k > 0; k-- {
		g := fmt.Sprintf("G%d", 1+r.IntN(ng))
		svcs := []string{"S", "T", "S,T"}[r.IntN(3)]
		n := 1 + r.IntN(3)
		maxN := n + r.IntN(2)
		rq := ""
		if r.IntN(2) == 0 {
			rq = fmt.Sprintf(" RQADDR=Q%d", srvid)
		}
		fmt.Fprintf(&b, "s%d SRVGRP=%s SRVID=%d MIN=%d MAX=%d%s CLOPT=\"-s %s\"\n", srvid, g, srvid, n, maxN, rq, svcs)
		if strings.Contains(svcs, "S") {
			groupsWithS[g] = true
		}
		srvid += maxN
	}
	b.WriteString("*SERVICES\nS ROUTING=R\nT\n*ROUTING\nR FIELD=F RANGES=\"")
	var items []string
	for k := 1 + r.IntN(4); k > 0; k-- {
		lo := r.IntN(100) - 20
		hi := lo + r.IntN(40)
		g := "*"
		if r.IntN(4) != 0 {
			g = fmt.Sprintf("G%d", 1+r.IntN(ng))
		}
		ranges = append(ranges, refRange{lo: lo, hi: hi, group: g})
		text := strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
		if lo == hi {
			text = strconv.Itoa(lo)
		}
		items = append(items, text+":"+g)
	}
	if r.IntN(2) == 0 {
		g := "*"
		if r.IntN(3) != 0 {
			g = fmt.Sprintf("G%d", 1+r.IntN(ng))
		}
		ranges = append(ranges, refRange{group: g, catchAll: true})
		items = append(items, "*:"+g)
	}
	b.WriteString(strings.Join(items, ",\n  ") + "\"\n")
	var tr strings.Builder
	tr.WriteString("time_ms,service,origin,service_ms,route\n")
	tm := 0
	for k := 1 + r.IntN(40); k > 0; k-- {
		tm += r.IntN(3)
		svc := []string{"S", "S", "S", "T"}[r.IntN(4)]
		val := ""
		if r.IntN(8) != 0 {
			val = strconv.Itoa(r.IntN(160) - 40)
		}
		fmt.Fprintf(&tr, "%d,%s,site%d,%d,%s\n", tm, svc, 1+r.IntN(nm), r.IntN(4), val)
		trace = append(trace, [2]string{svc, val})
	}
	policy := []string{"tuxedo", "tuxedo", "round_robin", "random", "jsq", "p2c"}[r.IntN(6)]
	sc := map[string]any{"ubbconfig": b.String(), "policy": policy, "seed": r.IntN(1000),
		"workload": map[string]any{"trace_csv": tr.String()}}
	doc, _ = json.Marshal(sc)
	return doc, ranges, groupsWithS, trace
}

// TestRoutingProperties runs random routed scenarios and checks every
// dispatch row against the reference routing step: a request goes to a
// group its value maps to (with the catch-all fallback), or fails with
// TPESYSTEM (no value, no range) or TPENOENT (no candidate left).
func TestRoutingProperties(t *testing.T) {
	t.Parallel()
	var r rng.PCG
	r.Seed(11, 0)
	for n := 0; n < 300; n++ {
		doc, ranges, withS, trace := randomRouted(&r)
		sc, err := ParseScenario(doc)
		if err != nil {
			t.Fatalf("scenario %d: %v\n%s", n, err, doc)
		}
		var log bytes.Buffer
		res, err := Run(sc, RunOptions{Dispatch: &log})
		if err != nil {
			t.Fatalf("scenario %d: %v\n%s", n, err, doc)
		}
		rows, err := csv.NewReader(&log).ReadAll()
		if err != nil || len(rows) != len(trace)+1 {
			t.Fatalf("scenario %d: %d log rows for %d requests (%v)", n, len(rows)-1, len(trace), err)
		}
		for i, tr := range trace {
			row := rows[i+1]
			server, reason := row[4], row[10]
			group, _, _ := strings.Cut(server, "/")
			if tr[0] == "T" {
				if reason == "TPESYSTEM" {
					t.Fatalf("scenario %d row %d: T is not routed, got TPESYSTEM\n%s", n, i+1, doc)
				}
				continue
			}
			want, fallback := "", ""
			k := -1
			if tr[1] != "" {
				v, _ := strconv.Atoi(tr[1])
				k = refRoute(ranges, v)
			}
			switch {
			case k < 0:
				want = "TPESYSTEM"
			default:
				g := ranges[k].group
				last := ranges[len(ranges)-1]
				has := func(g string) bool { return g == "*" && len(withS) > 0 || withS[g] }
				switch {
				case has(g):
					want = g
				case last.catchAll && k != len(ranges)-1 && has(last.group):
					want, fallback = last.group, " (catch-all fallback)"
				default:
					want = "TPENOENT"
				}
			}
			switch want {
			case "TPESYSTEM", "TPENOENT":
				if reason != want {
					t.Fatalf("scenario %d row %d (value %q): got %s on %s, want %s\n%s", n, i+1, tr[1], reason, server, want, doc)
				}
			case "*":
				if server == "" {
					t.Fatalf("scenario %d row %d (value %q): got %s, want a server of any group\n%s", n, i+1, tr[1], reason, doc)
				}
			default:
				if group != want {
					t.Fatalf("scenario %d row %d (value %q): got %s (%s), want group %s%s\n%s", n, i+1, tr[1], server, reason, want, fallback, doc)
				}
			}
		}
		for _, s := range res.Servers {
			if s.Spare && s.Requests > 0 {
				t.Fatalf("scenario %d: spare %s served %d requests", n, s.ID, s.Requests)
			}
		}
	}
}
