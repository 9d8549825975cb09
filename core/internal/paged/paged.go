// Package paged holds records in pages that never move ([Pool]): growing
// the pool adds a page and copies nothing, and a record's address stays
// what it was. The engine keeps its in-flight records there: a slice that
// doubled would hold up to twice the records it needs and leave the copies
// it grew from to the collector; with a backlog of a million requests that
// was most of what a held request cost.
package paged

// Shift sets a page: 1<<Shift records (256; for the engine's in-flight
// records, about 47 KB).
const Shift = 8

// Page is the number of records in a page.
const Page = 1 << Shift

// Pool holds records, slot s at page s>>Shift. Its zero value is empty and
// ready.
type Pool[T any] struct {
	pages []*[Page]T
	n     int32 // slots handed out
}

// At returns the record of slot s (0 <= s < Len).
func (p *Pool[T]) At(s int32) *T {
	return &p.pages[uint32(s)>>Shift][uint32(s)&(Page-1)]
}

// Len is the number of slots handed out.
func (p *Pool[T]) Len() int { return int(p.n) }

// Add hands out a new slot, its record zero.
func (p *Pool[T]) Add() int32 {
	if int(p.n)>>Shift == len(p.pages) {
		p.pages = append(p.pages, new([Page]T))
	}
	p.n++
	return p.n - 1
}
