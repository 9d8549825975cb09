package core

import (
	"fmt"
	"math"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// Long runs against queueing theory. Each scenario is one queue
// with Poisson arrivals at 80% load; the mean wait must be within 6% of the
// formula (the runs are 400 000 requests, whose standard error at this load
// is about 2%), and utilization within 1% of the offered load.
func theoryScenario(t *testing.T, servers int, rq, dist string, ratePerS float64) *result.Result {
	t.Helper()
	rqaddr := ""
	if rq != "" {
		rqaddr = ` RQADDR=\"` + rq + `\"`
	}
	doc := fmt.Sprintf(`{
  "ubbconfig": "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL N\n\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/a\" TUXCONFIG=\"/a/t\" TUXDIR=\"/t\"\n\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n\n*SERVERS\nsimpserv SRVGRP=APP SRVID=1 MIN=%d%s CLOPT=\"-s SVC --\"\n\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": %s}},
  "seed": 11,
  "workload": {"generate": {"duration_ms": %g, "streams": [{"service": "SVC", "arrivals": "poisson", "rate_per_s": %g}]}}
}`, servers, rqaddr, dist, 400000/ratePerS*1000, ratePerS)
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// erlangC is the probability that an arrival waits in M/M/c with offered
// load a = lambda/mu (in servers).
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	term *= a / float64(c)
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top)
}

func TestQueueingTheory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long runs")
	}
	cases := []struct {
		name     string
		servers  int
		rq, dist string
		rate     float64
		wantWait float64 // ms
	}{
		// M/M/1: Wq = rho / (mu - lambda) = 0.8 / (250 - 200) s = 16 ms.
		{"M/M/1 (LDBAL=N sends everything to one server)", 2, "", `{"dist": "exp", "mean_ms": 4}`, 200, 16},
		// M/D/1: Wq = rho / (2 mu (1 - rho)) = 0.8 x 4 / (2 x 0.2) = 8 ms.
		{"M/D/1 (Pollaczek-Khinchine)", 1, "", `{"dist": "const", "ms": 4}`, 200, 8},
		// M/H2/1, a balanced hyperexponential of mean 4 ms and sd 8 ms
		// (Pollaczek-Khinchine): Wq = lambda E[S^2] / (2 (1 - rho)) with
		// E[S^2] = sd^2 + mean^2 = 80 ms^2: 0.2/ms x 80 / 0.4 = 40 ms.
		{"M/H2/1 (Pollaczek-Khinchine, sd twice the mean)", 1, "", `{"dist": "hyperexp", "mean_ms": 4, "sd_ms": 8}`, 200, 40},
		// M/M/4 on one MSSQ queue: Wq = C(4, 3.2) / (c mu - lambda).
		{"M/M/c (one MSSQ set, Erlang C)", 4, "Q", `{"dist": "exp", "mean_ms": 4}`, 800, erlangC(4, 3.2) / (1000 - 800) * 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := theoryScenario(t, c.servers, c.rq, c.dist, c.rate)
			// Poisson arrivals: rate x duration = 400 000 expected, standard
			// deviation sqrt(400 000) = 632; allow 4 of them.
			if d := math.Abs(float64(res.Requests.Issued) - 400000); d > 4*632 {
				t.Errorf("issued: got %d, want 400000 +- %d (rate x duration)", res.Requests.Issued, 4*632)
			}
			if got := res.WaitMS.Mean; math.Abs(got-c.wantWait) > 0.06*c.wantWait {
				t.Errorf("mean wait: got %.3f ms, want %.3f ms within 6%%", got, c.wantWait)
			}
			var busy float64
			for _, s := range res.Servers {
				busy += s.Utilization
			}
			want := 0.8 * busyScale(c.servers, c.rq)
			if math.Abs(busy-want) > 0.01*want {
				t.Errorf("total utilization: got %.4f, want %.2f within 1%%", busy, want)
			}
			t.Logf("%d requests: mean wait %.3f ms (theory %.3f), utilization %.4f (offered %.2f)",
				res.Requests.Completed, res.WaitMS.Mean, c.wantWait, busy, want)
		})
	}
}

// busyScale is the number of servers that share the offered load: one for
// LDBAL=N without MSSQ (only the first works), all of an MSSQ set.
func busyScale(servers int, rq string) float64 {
	if rq == "" {
		return 1
	}
	return float64(servers)
}
