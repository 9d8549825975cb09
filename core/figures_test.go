package core

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

func runExample(t *testing.T, name string) *result.Result {
	t.Helper()
	data, err := os.ReadFile("../examples/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFiguresOfResult checks the scoped figures against the result's own
// fields, computed here by hand from the servers, services and machines.
func TestFiguresOfResult(t *testing.T) {
	r := runExample(t, "mp-netload")
	m := mustModel(t, "mp-netload")
	var top, sum1 float64
	n1 := 0
	for _, s := range r.Servers {
		if s.LMID == "SITE2" {
			top = math.Max(top, s.Utilization)
		}
		if s.LMID == "SITE1" {
			sum1 += s.Utilization
			n1++
		}
	}
	var sent2 int64
	for _, mc := range r.Machines {
		if mc.LMID == "SITE2" {
			sent2 = mc.Sent
		}
	}
	svc := r.Services[0]
	for _, c := range []struct {
		name string
		want float64
	}{
		{"utilization_max[machine:SITE2]", top},
		{"utilization_mean[machine:SITE1]", sum1 / float64(n1)},
		{"network_sent[machine:SITE2]", float64(sent2)},
		{"response_p99_ms[" + svc.Name + "]", svc.ResponseMS.P99},
		{"completed[" + svc.Name + "]", float64(svc.Completed)},
		{"response_p99_ms", r.ResponseMS.P99},
		{"utilization_max", r.Headline["utilization_max"]},
	} {
		ref, err := result.ParseFigure(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := ref.Check(m); err != nil {
			t.Fatal(err)
		}
		if got := ref.Of(r); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct{ name, msg string }{
		{"utilization_max[machine:SITE9]", `no machine "SITE9" in the UBBCONFIG (machines: SITE1, SITE2)`},
		{"response_p99_ms[NOSUCH]", `no service "NOSUCH" in the UBBCONFIG (services: BALANCE)`},
	} {
		ref, err := result.ParseFigure(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := ref.Check(m); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
}

// TestHeadline checks the headline holds every headline figure of the table,
// each as its definition reads it, and that the struct headline agrees.
func TestHeadline(t *testing.T) {
	r := runExample(t, "mp-netload")
	n := 0
	for _, f := range result.Figures() {
		if !f.Headline {
			continue
		}
		n++
		v, ok := r.Headline[f.Name]
		if !ok {
			t.Errorf("headline lacks %s", f.Name)
		}
		ref, _ := result.ParseFigure(f.Name)
		if want := math.Round(ref.Of(r)*1e6) / 1e6; v != want {
			t.Errorf("headline %s = %v, want %v", f.Name, v, want)
		}
	}
	if len(r.Headline) != n {
		t.Errorf("headline has %d figures, want %d", len(r.Headline), n)
	}
	var top float64
	for _, s := range r.Servers {
		top = max(top, s.Utilization)
	}
	h := result.HeadlineOf(r)
	if h.Issued != r.Requests.Issued || h.UtilizationMax != top || h.ResponseP99MS != r.ResponseMS.P99 {
		t.Errorf("HeadlineOf disagrees with the result: %+v", h)
	}
}

func mustModel(t *testing.T, name string) *Model {
	t.Helper()
	data, err := os.ReadFile("../examples/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Model()
}
