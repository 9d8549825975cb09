package core

import (
	"math"
	"os"
	"strings"
	"testing"
)

func runExample(t *testing.T, name string) *Result {
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

// TestFigureNames reads canonical names, scopes and the old names.
func TestFigureNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"response_p99_ms", "response_p99_ms"},
		{" response_p99_ms[INQUIRY] ", "response_p99_ms[INQUIRY]"},
		{"utilization_max[machine:SITE2]", "utilization_max[machine:SITE2]"},
		{"max_utilization", "utilization_max"},
		{"utilization.max", "utilization_max"},
		{"crossed_network", "network_sent"},
		{"utilization.SITE1", "utilization_mean[machine:SITE1]"},
		{"wait_ms.mean", "wait_mean_ms"},
		{"failed.TPENOENT", "failed.TPENOENT"},
		{"failed.TPENOENT[INQUIRY]", "failed.TPENOENT[INQUIRY]"},
		{"network_sent[machine:SITE1]", "network_sent[machine:SITE1]"},
	} {
		ref, err := ParseFigure(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := ref.String(); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"response_p100_ms", `unknown figure "response_p100_ms"`},
		{"utilization_max[INQUIRY]", "utilization_max has no per-service value"},
		{"response_p99_ms[machine:SITE1]", "response_p99_ms has no per-machine value"},
		{"utilization_mean", "want utilization_mean[machine:LMID]"},
		{"response_p99_ms[INQUIRY", "with the ] at the end"},
		{"response_p99_ms[]", "want NAME[SERVICE]"},
		{"utilization_max[machine:]", "want NAME[machine:LMID]"},
	} {
		_, err := ParseFigure(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want an error with %q", c.in, err, c.msg)
		}
	}
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
		ref, err := ParseFigure(c.name)
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
		ref, err := ParseFigure(c.name)
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
	for _, f := range Figures() {
		if !f.Headline {
			continue
		}
		n++
		v, ok := r.Headline[f.Name]
		if !ok {
			t.Errorf("headline lacks %s", f.Name)
		}
		ref, _ := ParseFigure(f.Name)
		if want := round6(ref.Of(r)); v != want {
			t.Errorf("headline %s = %v, want %v", f.Name, v, want)
		}
	}
	if len(r.Headline) != n {
		t.Errorf("headline has %d figures, want %d", len(r.Headline), n)
	}
	h := HeadlineOf(r)
	if h.Issued != r.Requests.Issued || h.MaxUtilization != maxUtilization(r) || h.ResponseP99MS != r.ResponseMS.P99 {
		t.Errorf("HeadlineOf disagrees with the result: %+v", h)
	}
	for _, name := range sweptFigures() {
		if _, ok := r.Headline[name]; !ok {
			t.Errorf("swept figure %s is not in the headline", name)
		}
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

// TestFiguresDoc: the table in docs/engine.md is figuresMarkdown, between
// its markers; go test ./core -run FiguresDoc -update rewrites it.
func TestFiguresDoc(t *testing.T) {
	const path = "../docs/engine.md"
	const begin, end = "<!-- figures table: generated from core/figures.go -->\n", "<!-- end of the figures table -->"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no figures table markers", path)
	}
	want := figuresMarkdown()
	if *update {
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(begin) : j]; got != want {
		t.Errorf("%s: the figures table differs from core/figures.go; run go test ./core -run FiguresDoc -update\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// sweptFigures are the figures a sweep samples for the whole run.
func sweptFigures() []string {
	var out []string
	for _, f := range figureTable {
		if f.Swept && f.scope&scopeRun != 0 {
			out = append(out, f.Name)
		}
	}
	return out
}
