package core

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/dlog"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file builds models, setups and workloads by hand for the engine's
// tests, in a tiny line language, so each test reads like its scenario:
//
//	model MP ldbal Y
//	machine site1 netload 0
//	group G1 site1
//	server G1 1 simpserv S,T [rq=QA] [n=2] [gateway] [system]
//	service S load 50 prio 50 [group G1]
//
// and requests as "time_ms service origin service_ms [prio]" lines
// (service_ms "-" draws from the setup's sampler).

func engModel(t *testing.T, text string) *Model {
	t.Helper()
	m := &Model{Model: "SHM", ScanUnitUS: 10_000_000, SanityScan: 12, BlockTime: 6}
	groupLMID := map[string]string{}
	svc := map[string]*ubb.Service{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "model":
			m.Model, m.LDBAL = f[1], len(f) > 3 && f[3] == "Y"
		case "machine":
			nl, _ := strconv.Atoi(f[3])
			m.Machines = append(m.Machines, ubb.Machine{LMID: f[1], PMID: f[1], NetLoad: nl})
		case "group":
			m.Groups = append(m.Groups, ubb.Group{Name: f[1], GrpNo: len(m.Groups) + 1, LMIDs: []string{f[2]}})
			groupLMID[f[1]] = f[2]
		case "server":
			addTestServers(t, m, groupLMID, f)
		case "service":
			s := svc[f[1]]
			if s == nil {
				s = &ubb.Service{Name: f[1], Load: 50, Prio: 50}
				svc[f[1]] = s
			}
			load, _ := strconv.Atoi(f[3])
			prio, _ := strconv.Atoi(f[5])
			if len(f) > 7 && f[6] == "group" {
				if s.ByGroup == nil {
					s.ByGroup = map[string]ubb.ServiceParams{}
				}
				s.ByGroup[f[7]] = ubb.ServiceParams{Load: load, Prio: prio}
			} else {
				s.Load, s.Prio = load, prio
			}
		default:
			t.Fatalf("test model: bad line %q", line)
		}
	}
	for _, s := range m.Servers {
		for _, name := range s.Services {
			if svc[name] == nil {
				svc[name] = &ubb.Service{Name: name, Load: 50, Prio: 50}
			}
		}
	}
	for _, s := range svc {
		m.Services = append(m.Services, *s)
	}
	sort.Slice(m.Services, func(i, j int) bool { return m.Services[i].Name < m.Services[j].Name })
	return m
}

func addTestServers(t *testing.T, m *Model, groupLMID map[string]string, f []string) {
	t.Helper()
	group, name := f[1], f[3]
	srvid, _ := strconv.Atoi(f[2])
	services := strings.Split(f[4], ",")
	n, rq := 1, ""
	var gateway, system bool
	for _, opt := range f[5:] {
		switch {
		case strings.HasPrefix(opt, "rq="):
			rq = opt[3:]
		case strings.HasPrefix(opt, "n="):
			n, _ = strconv.Atoi(opt[2:])
		case opt == "gateway":
			gateway = true
		case opt == "system":
			system = true
		}
	}
	lmid := groupLMID[group]
	mi := m.MachineIndex(lmid)
	if mi < 0 {
		t.Fatalf("test model: group %s has unknown LMID %s", group, lmid)
	}
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("%s/%d", group, srvid+k)
		qname := id
		if rq != "" {
			qname = rq
		}
		qi := -1
		for i := range m.Queues {
			if m.Queues[i].Name == qname && m.Queues[i].Group == group {
				qi = i
			}
		}
		if qi < 0 {
			m.Queues = append(m.Queues, ubb.Queue{Name: qname, Group: group, LMID: lmid, Machine: mi})
			qi = len(m.Queues) - 1
		}
		m.Queues[qi].Servers = append(m.Queues[qi].Servers, len(m.Servers))
		m.Servers = append(m.Servers, ubb.Server{ID: id, Name: name, Group: group, SrvID: srvid + k, LMID: lmid,
			Machine: mi, Queue: qname, QueueIdx: qi, Services: services, Gateway: gateway, System: system,
			AdvertiseSource: "clopt"})
	}
}

// engSetup returns a [plan.Setup] for m with every default filled in, as
// Compile fills them in ([plan.Resolve] on a scenario with an empty workload);
// service times come from the requests unless the test sets ServiceTime.
func engSetup(m *Model) *plan.Setup {
	sc := &scenario.Scenario{Workload: scenario.Workload{Trace: []scenario.TraceRow{}}, Domains: map[string]scenario.DomainSpec{}}
	for _, d := range m.Domains { // the tests set RemoteTime themselves
		one := 1.0
		sc.Domains[d.Name] = scenario.DomainSpec{ResponseTime: scenario.Dist{Dist: "const", MS: &one}}
	}
	st, err := plan.Resolve(m, sc, plan.Options{})
	if err != nil {
		panic(fmt.Sprintf("engSetup: %v", err))
	}
	st.ServiceTime = make([][]dist.Sampler, len(m.Services))
	st.RemoteTime = make([]dist.Sampler, len(m.Services))
	return st
}

// sliceRequests is a Requests over a slice.
type sliceRequests struct {
	rs    []workload.Request
	i     int
	after func() // called on every Next, for invariant checks
}

func (s *sliceRequests) Next(r *workload.Request) bool {
	if s.after != nil {
		s.after()
	}
	if s.i >= len(s.rs) {
		return false
	}
	*r = s.rs[s.i]
	s.i++
	return true
}
func (s *sliceRequests) Err() error   { return nil }
func (s *sliceRequests) Total() int64 { return int64(len(s.rs)) }

// engRequests parses "time_ms service origin service_ms [prio]" lines.
func engRequests(t *testing.T, m *Model, text string) *sliceRequests {
	t.Helper()
	out := &sliceRequests{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		ms, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatalf("test requests: %q: %v", line, err)
		}
		r := workload.Request{Seq: int64(len(out.rs) + 1), TimeUS: usec.Round(ms * 1000), ServiceUS: -1,
			Origin: m.MachineIndex(f[2]), Key: uint64(len(out.rs) + 1)}
		r.Service = serviceIndex(m, f[1])
		if r.Origin < 0 || r.Service < 0 {
			t.Fatalf("test requests: %q: unknown service or origin", line)
		}
		if f[3] != "-" {
			sms, _ := strconv.ParseFloat(f[3], 64)
			r.ServiceUS = usec.Round(sms * 1000)
		}
		if len(f) > 4 {
			r.Prio, _ = strconv.Atoi(f[4])
		}
		out.rs = append(out.rs, r)
	}
	return out
}

func serviceIndex(m *Model, name string) int {
	for i := range m.Services {
		if m.Services[i].Name == name {
			return i
		}
	}
	return -1
}

// runLog simulates and returns the result and the dispatch log's rows
// (without the header).
func runLog(t *testing.T, setup *plan.Setup, reqs workload.Stream) (*result.Result, []string) {
	t.Helper()
	var buf bytes.Buffer
	res, err := simulate(setup, reqs, simOptions{RunOptions: RunOptions{Dispatch: &buf}})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0]+"\n" != dlog.Header {
		t.Fatalf("dispatch log header: got %q, want %q", lines[0], dlog.Header)
	}
	return res, lines[1:]
}

// fixedMS always draws ms.
type fixedMS float64

func (c fixedMS) SampleMS(*rng.PCG) float64 { return float64(c) }
func (c fixedMS) MeanMS() float64           { return float64(c) }

// diffRows reports the rows that differ.
func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// newSetup is the setup Compile resolves sc into, for the tests that look
// at it.
func newSetup(sc *scenario.Scenario, opt RunOptions) (*plan.Setup, error) {
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.setup, nil
}

// f and ip point at a scenario's optional numbers.
func f(v float64) *float64 { return &v }
func ip(v int) *int        { return &v }
