// Package donecount counts the requests each server processed, and the LOAD
// they carried, per (server, service) ([Table]), in memory linear in what
// the servers advertise however many servers and services a model has.
package donecount

import (
	"cmp"
	"maps"
	"slices"

	"github.com/tuxlb/tuxlb/core/ubb"
)

// Table counts requests processed, and the LOAD they carried, per (server,
// service). A small model (servers x services up to denseMax) has a dense
// table, one counter per pair, found by arithmetic. A larger one keeps
// memory linear in the advertisements rather than servers x services: each
// server has a block of counters for the services it advertises (sorted),
// and the rare request a server processes without advertising its service
// (another instance of its MSSQ set does) is counted in a map.
//
// Counting one request of service k, with LOAD load, processed by server i
// is AddDense(i, k, load) when Dense, else AddSparse (the caller picks one,
// so that the dense case is inlined).
type Table struct {
	Dense      bool
	nsrv, nsvc int64
	c          []count         // dense: [server*nsvc + service]; sparse: the blocks
	off        []int32         // sparse: per server, start of its block in c; off[len] = end
	svc        []int32         // sparse: service index per counter, sorted within a block
	more       map[int64]count // sparse: server*nsvc + service -> counts
}

// count is the requests processed of one (server, service) and the sum of
// their LOAD.
type count struct{ n, load int64 }

// denseMax is the most servers x services counted in a dense table (16
// bytes each: 1 MiB).
const denseMax = 1 << 16

// Init sets d up for m's servers and services, every count zero.
func (d *Table) Init(m *ubb.Model) { d.initUpTo(m, denseMax) }

// initUpTo is Init with a dense table up to most counters.
func (d *Table) initUpTo(m *ubb.Model, most int64) {
	d.nsrv, d.nsvc = int64(len(m.Servers)), int64(len(m.Services))
	if n := d.nsrv * d.nsvc; n <= most {
		d.Dense, d.c = true, make([]count, n)
		return
	}
	index := make(map[string]int32, len(m.Services))
	for i := range m.Services {
		index[m.Services[i].Name] = int32(i)
	}
	d.off = make([]int32, len(m.Servers)+1)
	for i := range m.Servers {
		start := len(d.svc)
		for _, name := range m.Servers[i].Services {
			if k, ok := index[name]; ok {
				d.svc = append(d.svc, k)
			}
		}
		block := d.svc[start:]
		slices.Sort(block)
		d.svc = d.svc[:start+len(slices.Compact(block))]
		d.off[i+1] = int32(len(d.svc))
	}
	d.c = make([]count, len(d.svc))
}

// AddDense counts a request in the dense table.
func (d *Table) AddDense(i, k int32, load int64) {
	c := &d.c[int64(i)*d.nsvc+int64(k)]
	c.n, c.load = c.n+1, c.load+load
}

// AddSparse counts a request in the blocks. The search takes no branch on
// the comparisons (which way it goes is a coin toss the processor would
// mispredict, about once a request): the block's first position whose
// service is not below k lies in [base, base+n], and each step halves n
// with a conditional move.
func (d *Table) AddSparse(i, k int32, load int64) {
	base, hi := int(d.off[i]), int(d.off[i+1])
	if n := hi - base; n > 0 {
		for n > 1 {
			half := n >> 1
			base += half * b2i(d.svc[base+half] < k)
			n -= half
		}
		if base += b2i(d.svc[base] < k); base < hi && d.svc[base] == k {
			d.c[base].n++
			d.c[base].load += load
			return
		}
	}
	if d.more == nil {
		d.more = map[int64]count{}
	}
	key := int64(i)*d.nsvc + int64(k)
	c := d.more[key]
	d.more[key] = count{c.n + 1, c.load + load}
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// SvcCount is a number of requests of service Svc.
type SvcCount struct {
	Svc int32
	N   int64
}

// PerServer returns, per server, the services it processed requests of
// with their counts, in service order.
func (d *Table) PerServer() [][]SvcCount {
	out := make([][]SvcCount, d.nsrv)
	if d.Dense {
		for i := range out {
			for k, c := range d.c[int64(i)*d.nsvc : int64(i+1)*d.nsvc] {
				if c.n > 0 {
					out[i] = append(out[i], SvcCount{int32(k), c.n})
				}
			}
		}
		return out
	}
	for i := range out {
		for j := d.off[i]; j < d.off[i+1]; j++ {
			if d.c[j].n > 0 {
				out[i] = append(out[i], SvcCount{d.svc[j], d.c[j].n})
			}
		}
	}
	if len(d.more) > 0 {
		keys := slices.Sorted(maps.Keys(d.more))
		for _, key := range keys {
			i := key / d.nsvc
			out[i] = append(out[i], SvcCount{int32(key % d.nsvc), d.more[key].n})
		}
		for i := range out {
			slices.SortFunc(out[i], func(a, b SvcCount) int { return cmp.Compare(a.Svc, b.Svc) })
		}
	}
	return out
}

// PerServerTotals sets requests[i] and load[i] to the requests server i
// processed and the sum of their LOAD, over all services.
func (d *Table) PerServerTotals(requests, load []int64) {
	clear(requests)
	clear(load)
	for i := range requests {
		var row []count
		if d.Dense {
			row = d.c[int64(i)*d.nsvc : int64(i+1)*d.nsvc]
		} else {
			row = d.c[d.off[i]:d.off[i+1]]
		}
		for _, c := range row {
			requests[i] += c.n
			load[i] += c.load
		}
	}
	for key, c := range d.more {
		requests[key/d.nsvc] += c.n
		load[key/d.nsvc] += c.load
	}
}
