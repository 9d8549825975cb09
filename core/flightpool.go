package core

// poolShift sets the page of a flightPool: 1<<poolShift records (256, about
// 47 KB).
const poolShift = 8

// poolPage is the number of records in a page.
const poolPage = 1 << poolShift

// flightPool holds the engine's in-flight records, slot s at page s>>poolShift,
// in pages that never move: growing it adds a page and copies nothing. A
// slice that doubled would hold up to twice the records it needs, and leave
// the copies it grew from to the collector; with a backlog of a million
// requests that was most of what a held request cost.
type flightPool struct {
	pages []*[poolPage]flight
	n     int32 // slots handed out
}

// at returns the record of slot s (0 <= s < p.n).
func (p *flightPool) at(s int32) *flight {
	return &p.pages[uint32(s)>>poolShift][uint32(s)&(poolPage-1)]
}

// len is the number of slots handed out.
func (p *flightPool) len() int { return int(p.n) }

// add hands out a new slot, its record zero.
func (p *flightPool) add() int32 {
	if int(p.n)>>poolShift == len(p.pages) {
		p.pages = append(p.pages, new([poolPage]flight))
	}
	p.n++
	return p.n - 1
}
