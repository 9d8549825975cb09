package donecount

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Table keeps a dense table, or (past its bound) a block per server for
// its advertised services and a map for the rest; perServer lists them
// together in service order, the same either way.
func TestDoneCounts(t *testing.T) {
	m := &ubb.Model{Services: []ubb.Service{{Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}},
		Servers: []ubb.Server{{Services: []string{"C", "A", "C"}}, {Services: nil}, {Services: []string{"B"}}}}
	for _, denseMax := range []int64{12, 11} {
		var d Table
		d.initUpTo(m, denseMax)
		for _, a := range [][2]int32{{0, 2}, {0, 0}, {0, 2}, {0, 1}, {1, 3}, {2, 1}, {0, 3}} {
			d.add(a[0], a[1], 1)
		}
		got := fmt.Sprint(d.PerServer())
		if want := "[[{0 1} {1 1} {2 2} {3 1}] [{3 1}] [{1 1}]]"; got != want {
			t.Errorf("dense %v: got %s, want %s", d.Dense, got, want)
		}
	}
}

// TestDoneCountsSearch: in both layouts (a dense table, and the sparse
// blocks whose branch-free search finds each advertised service's counter in
// blocks of every size from 0 to 40, counting services a server does not
// advertise apart), the counts and LOAD sums per (server, service) and per
// server equal a plain map's.
func TestDoneCountsSearch(t *testing.T) {
	const nsvc, nsrv = 64, 41
	for _, dense := range []bool{true, false} {
		t.Run(fmt.Sprintf("dense=%v", dense), func(t *testing.T) {
			r := rng.New(17, 4)
			m := &ubb.Model{Services: make([]ubb.Service, nsvc), Servers: make([]ubb.Server, nsrv)}
			for s := range m.Services {
				m.Services[s].Name = fmt.Sprintf("S%02d", s)
			}
			for i := range m.Servers { // server i advertises i distinct services at random
				for _, s := range perm(r, nsvc)[:i] {
					m.Servers[i].Services = append(m.Servers[i].Services, m.Services[s].Name)
				}
			}
			var d Table
			d.initUpTo(m, map[bool]int64{true: nsvc * nsrv, false: nsvc*nsrv - 1}[dense])
			if d.Dense != dense {
				t.Fatalf("dense: got %v, want %v", d.Dense, dense)
			}
			want := map[[2]int32]int64{}
			wantReq, wantLoad := make([]int64, nsrv), make([]int64, nsrv)
			for range 50_000 {
				i, k := int32(r.IntN(nsrv)), int32(r.IntN(nsvc))
				load := int64(r.IntN(100))
				d.add(i, k, load)
				want[[2]int32{i, k}]++
				wantReq[i]++
				wantLoad[i] += load
			}
			got := map[[2]int32]int64{}
			for i, counts := range d.PerServer() {
				for j, c := range counts {
					got[[2]int32{int32(i), c.Svc}] = c.N
					if j > 0 && counts[j-1].Svc >= c.Svc {
						t.Errorf("server %d: services not in order: %v", i, counts)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("counts per (server, service) differ from a plain map's (%d against %d entries)", len(got), len(want))
			}
			gotReq, gotLoad := make([]int64, nsrv), make([]int64, nsrv)
			d.PerServerTotals(gotReq, gotLoad)
			if !reflect.DeepEqual(gotReq, wantReq) || !reflect.DeepEqual(gotLoad, wantLoad) {
				t.Errorf("per server: got requests %v load %v, want %v %v", gotReq, gotLoad, wantReq, wantLoad)
			}
			if dense {
				if len(d.more) != 0 || len(d.c) != nsvc*nsrv {
					t.Errorf("dense: got %d counters and %d apart, want %d and 0", len(d.c), len(d.more), nsvc*nsrv)
				}
				return
			}
			if len(d.more) == 0 {
				t.Error("no request of a service its server does not advertise was counted apart; want some")
			}
			for key := range d.more { // only those: an advertised one has its counter
				i, k := key/nsvc, key%nsvc
				if slices.Contains(m.Servers[i].Services, m.Services[k].Name) {
					t.Fatalf("server %d's requests of its advertised service %d were counted apart, not in its block", i, k)
				}
			}
		})
	}
}

// TestDoneCountsMemory: a large model (10 000 instances x 200 services) gets
// counters per advertisement, not per (server, service) pair.
func TestDoneCountsMemory(t *testing.T) {
	m := &ubb.Model{Services: make([]ubb.Service, 200), Servers: make([]ubb.Server, 10_000)}
	for s := range m.Services {
		m.Services[s].Name = fmt.Sprintf("S%d", s)
	}
	for i := range m.Servers {
		m.Servers[i].Services = []string{m.Services[i%200].Name, m.Services[(i+1)%200].Name}
	}
	var d Table
	d.Init(m)
	if d.Dense || len(d.c) != 20_000 {
		t.Errorf("got dense %v with %d counters, want sparse with 20000", d.Dense, len(d.c))
	}
	d.add(9_999, 0, 5) // server 9999 advertises S199 and S0
	d.add(9_999, 7, 5) // ... not S7: counted apart
	req, load := make([]int64, 10_000), make([]int64, 10_000)
	d.PerServerTotals(req, load)
	if req[9_999] != 2 || load[9_999] != 10 || len(d.more) != 1 {
		t.Errorf("server 9999: got %d requests, load %d, %d apart; want 2, 10, 1", req[9_999], load[9_999], len(d.more))
	}
}

// add counts a request as the engine does (tests only).
func (d *Table) add(i, k int32, load int64) {
	if d.Dense {
		d.AddDense(i, k, load)
	} else {
		d.AddSparse(i, k, load)
	}
}

// perm returns a random permutation of 0..n-1 (tests only).
func perm(r *rng.PCG, n int) []int {
	p := make([]int, n)
	for i := range p {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], i
	}
	return p
}
